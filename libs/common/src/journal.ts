// The nested undo journal behind WorldState's checkpoint/commit/revert: each
// checkpoint opens a level of undo steps; commit hands its steps to the level
// below (so an outer revert still undoes them), revert runs them newest first.
export type Undo = () => void;

export class UndoJournal {
  private readonly levels: Undo[][] = [];

  /** open checkpoints; with none, writes need no undo step */
  get depth(): number {
    return this.levels.length;
  }

  /** records how to undo a write, when a checkpoint is open */
  record(undo: Undo): void {
    this.levels[this.levels.length - 1]?.push(undo);
  }

  checkpoint(): void {
    this.levels.push([]);
  }

  commit(): void {
    const top = this.levels.pop();
    if (!top) throw new Error('commit without checkpoint');
    const parent = this.levels[this.levels.length - 1];
    if (parent) for (const undo of top) parent.push(undo);
  }

  revert(): void {
    const top = this.levels.pop();
    if (!top) throw new Error('revert without checkpoint');
    for (let i = top.length - 1; i >= 0; i--) top[i]!();
  }
}
