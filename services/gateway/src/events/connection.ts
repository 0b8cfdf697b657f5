// One client's live events stream. Blocks arrive from the feed (feed.ts) in
// stream order; each is filtered for this client (its filters, and the chains
// its user may see, asked of the chains service and remembered per user) and
// written at once. The node never waits for a client: what the client does
// not read piles up in the response's buffer, and past `bufferBytes` the
// client is told (`event: lagged`) and disconnected — it resumes with
// `Last-Event-ID`. A resume is read from the stream at the client's pace,
// while the live blocks that come meanwhile wait (at most MAX_WAITING_BLOCKS).
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { VisibilityUser, VisibleChains } from '@platform/bus';
import type { Logger } from '@platform/common';
import type { FeedSubscriber } from './feed.js';
import { IDS_PER_BLOCK, type BlockMessages, type EventKind, type StreamMessage } from './messages.js';

export interface EventFilter {
  kinds: ReadonlySet<EventKind>;
  /** '' for the main chain; null: every chain the user may see */
  chains: ReadonlySet<string> | null;
  /** a contract's name or 40-hex address: its transactions and events only */
  contract: string | null;
  /** an event's name: those events, and the transactions that emitted one */
  event: string | null;
}

/** Whether a message passes the filters (the user's chains are checked apart); blocks are chosen by chain and kind alone. */
export function passes(filter: EventFilter, message: StreamMessage): boolean {
  if (!filter.kinds.has(message.kind)) return false;
  if (message.kind === 'block') return true;
  if (filter.contract !== null && !message.contracts.has(filter.contract)) return false;
  if (filter.event !== null && !message.names.has(filter.event)) return false;
  return true;
}

export interface ConnectionOptions {
  filter: EventFilter;
  user: VisibilityUser;
  visible: VisibleChains;
  bufferBytes: number;
  heartbeatMs: number;
  /** when the token ends (ms since the epoch): the stream ends then */
  expiresAt: number | null;
  logger: Logger;
  requestId: string;
  /** the last id the client has: messages up to it are not sent */
  after: number;
}

/** live blocks held while a resume is read; more mean the client reads slower than the node makes them */
const MAX_WAITING_BLOCKS = 10_000;
/** a closed stream's socket is destroyed after this, if the client has not read its end by then */
const END_GRACE_MS = 5_000;

export class EventConnection implements FeedSubscriber {
  private readonly waiting: BlockMessages[] = [];
  /** the resume is read: live blocks are written as they come */
  private live = false;
  private pumping = false;
  private closed = false;
  private lastId: number;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly o: ConnectionOptions,
    private readonly onClose: (reason: string) => void,
  ) {
    this.lastId = o.after;
    res.once('close', () => this.finish('the client disconnected'));
  }

  /** Sends the headers at once, and starts the heartbeats and the token's deadline. */
  open(): void {
    this.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no', 'x-request-id': this.o.requestId });
    this.res.write(`retry: 2000\n: connected\n\n`);
    this.res.flushHeaders();
    const heartbeat = setInterval(() => this.res.write(': heartbeat\n\n'), this.o.heartbeatMs);
    heartbeat.unref();
    this.timers.push(heartbeat);
    if (this.o.expiresAt !== null) {
      const expiry = setTimeout(() => this.end('the token expired'), Math.max(0, this.o.expiresAt - Date.now()));
      expiry.unref();
      this.timers.push(expiry);
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  push(block: BlockMessages): void {
    if (this.closed) return;
    this.waiting.push(block);
    if (this.waiting.length > MAX_WAITING_BLOCKS) return this.lagged();
    if (this.live) void this.pump();
  }

  /** A resumed block, written at the client's pace: the next is read once this one is taken. */
  async replayed(block: BlockMessages): Promise<void> {
    if (this.closed) throw new Error('closed');
    await this.write(block);
    if (this.res.writableLength > this.o.bufferBytes && !this.closed) await Promise.race([once(this.res, 'drain'), once(this.res, 'close')]);
    if (this.closed) throw new Error('closed');
  }

  /** The resume is read: what waited, and then every block, is written as it comes. */
  goLive(): void {
    this.live = true;
    // a reader of a range of the record (the dashboard's blocks) stops here rather than wait for the next block
    if (!this.closed) this.res.write(': live\n\n');
    void this.pump();
  }

  end(reason: string): void {
    if (this.closed) return;
    this.res.write(`: ${reason}\n\n`);
    this.finish(reason);
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.closed && this.waiting.length > 0) {
        await this.write(this.waiting.shift()!);
        if (this.res.writableLength > this.o.bufferBytes) return this.lagged();
      }
    } catch (err) {
      this.o.logger.error({ err, requestId: this.o.requestId }, 'a live events stream failed');
      this.finish('failed');
    } finally {
      this.pumping = false;
    }
  }

  private async write(block: BlockMessages): Promise<void> {
    const first = block.seq * IDS_PER_BLOCK;
    if (first + block.messages.length - 1 <= this.lastId) return;
    if (this.o.filter.chains && !this.o.filter.chains.has(block.chainId)) return;
    if (block.chainId !== '' && !(await this.o.visible.of(this.o.user, this.o.requestId)).includes(block.chainId)) return;
    const chosen = block.messages.filter((message) => first + message.index > this.lastId && passes(this.o.filter, message));
    this.lastId = Math.max(this.lastId, first + block.messages.length - 1);
    if (chosen.length === 0 || this.closed) return;
    // the frames as they were encoded once: a thousand connections do not each encode the same text
    this.res.write(chosen.length === block.messages.length ? block.all : chosen.length === 1 ? chosen[0].frame : Buffer.concat(chosen.map((m) => m.frame)));
  }

  private lagged(): void {
    if (this.closed) return;
    const notice = { code: 'SLOW_CONSUMER', message: `the client fell more than ${this.o.bufferBytes} bytes behind the node; reconnect with Last-Event-ID to resume` };
    this.res.write(`event: lagged\ndata: ${JSON.stringify(notice)}\n\n`);
    this.finish('slow consumer');
  }

  private finish(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.waiting.length = 0;
    for (const timer of this.timers) clearTimeout(timer);
    this.onClose(reason);
    if (!this.res.writableEnded) this.res.end();
    // a client that never reads its end must not hold the socket
    setTimeout(() => this.res.destroy(), END_GRACE_MS).unref();
  }
}
