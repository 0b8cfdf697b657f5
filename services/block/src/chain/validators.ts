// Who may propose, as the main chain's state says now (docs/network.md
// "Validators by governance"): the validator set contract, which the genesis
// creates with its validators and a majority of their organizations changes.
// Read at the moment of each check: a block is checked against its parent's
// state (the state this node applied last), so a change takes effect at the
// block boundary after the vote that decided it, on every node alike.
import type { Genesis, Validator, WorldState } from '@platform/common';
import { readValidatorSet } from '@platform/identity';

export class NetworkValidators {
  /** false on a node of its own, whose own key signs every block */
  readonly network: boolean;

  constructor(
    genesis: Genesis,
    /** the main chain's applied state */
    private readonly mainState: Pick<WorldState, 'getStorage'>,
  ) {
    this.network = (genesis.validators?.length ?? 0) > 0;
  }

  /** the validators now; empty on a node of its own */
  current(): Validator[] {
    return this.network ? readValidatorSet(this.mainState) : [];
  }

  addresses(): string[] {
    return this.current().map((v) => v.address);
  }
}
