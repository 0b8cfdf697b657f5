// The node's execution results as they are applied, read once for every
// subscriber: one ordered consumer on the EXEC stream (this node's own
// record, docs/architecture.md) follows its end, turns each result into its
// stream messages (messages.ts) and hands them to every connection. Nothing
// is opened before the first subscriber. A resume reads the stream from the
// place its id names with a consumer of its own, up to where the shared one
// took over (`subscribe` answers that sequence), so that a reconnecting
// client misses nothing and gets nothing twice.
import { ExecPartsMissing, STREAMS, nodeJetStream, readExecResult, type ConsumerMessages, type JsMsg, type NatsConnection } from '@platform/bus';
import type { ExecResult, Logger } from '@platform/common';
import type { ScopedJetStream } from '@platform/bus';
import { blockMessages, type BlockMessages } from './messages.js';

export interface FeedSubscriber {
  /** the next block's messages, in stream order; must not block */
  push(block: BlockMessages): void;
  /** the feed stops (the gateway closes) */
  end(reason: string): void;
}

const RETRY_MS = 1_000;
const PART_ATTEMPTS = 20;
/** subscribers handed a block in one turn of the event loop */
const FAN_OUT_SLICE = 64;

export class EventFeed {
  private readonly subscribers = new Set<FeedSubscriber>();
  private opened: Promise<ScopedJetStream> | null = null;
  /** the last sequence handed to the subscribers (or, before any, the stream's end when the feed opened) */
  private last = 0;
  private following: ConsumerMessages | null = null;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.subscribers.size;
  }

  /**
   * Adds a subscriber and answers the last sequence that will not reach it:
   * every later block is pushed to it. Throws when the stream cannot be read.
   */
  async subscribe(subscriber: FeedSubscriber): Promise<number> {
    await this.open();
    this.subscribers.add(subscriber);
    return this.last;
  }

  unsubscribe(subscriber: FeedSubscriber): void {
    this.subscribers.delete(subscriber);
  }

  /**
   * Hands `each` the blocks from sequence `from` through `to` (what the
   * shared consumer had passed when the caller subscribed), in order; stops
   * when `each` throws.
   */
  async replay(from: number, to: number, each: (block: BlockMessages) => Promise<void>): Promise<void> {
    if (from > to) return;
    const { js } = await this.open();
    const consumer = await js.consumers.get(STREAMS.exec.name, { opt_start_seq: Math.max(1, from) });
    const messages = await consumer.consume();
    try {
      for await (const msg of messages) {
        if (msg.seq > to) break;
        const block = await this.decode(msg);
        if (block) await each(block);
        if (msg.seq >= to) break;
      }
    } finally {
      await messages.close();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const subscriber of this.subscribers) subscriber.end('the gateway is stopping');
    this.subscribers.clear();
    await this.following?.close();
  }

  private open(): Promise<ScopedJetStream> {
    this.opened ??= (async () => {
      const bus = await nodeJetStream(this.nc);
      const info = await bus.jsm.streams.info(STREAMS.exec.name);
      this.last = info.state.last_seq;
      void this.follow(bus);
      return bus;
    })().catch((err: unknown) => {
      this.opened = null;
      throw err;
    });
    return this.opened;
  }

  /** Follows the stream's end for as long as the gateway runs; a consumer that fails is opened again after the last block handed on. */
  private async follow(bus: ScopedJetStream): Promise<void> {
    while (!this.closed) {
      try {
        const consumer = await bus.js.consumers.get(STREAMS.exec.name, { opt_start_seq: this.last + 1 });
        this.following = await consumer.consume();
        if (this.closed) await this.following.close();
        for await (const msg of this.following) {
          if (msg.seq <= this.last) continue;
          const block = await this.decode(msg);
          this.last = msg.seq;
          if (block) await this.fanOut(block);
        }
      } catch (err) {
        if (!this.closed) this.logger.warn({ err, after: this.last }, 'the live events consumer failed; opening it again');
      }
      if (!this.closed) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  /**
   * Hands a block to the subscribers of now, FAN_OUT_SLICE at a time with a
   * turn of the event loop between: a thousand writes of a large block at
   * once would hold up every other request of the gateway.
   */
  private async fanOut(block: BlockMessages): Promise<void> {
    const now = [...this.subscribers];
    for (let i = 0; i < now.length; i += FAN_OUT_SLICE) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      for (const subscriber of now.slice(i, i + FAN_OUT_SLICE)) subscriber.push(block);
    }
  }

  /** A message's stream messages; null for one that is not an execution result (logged), or whose parts stay missing. */
  private async decode(msg: JsMsg): Promise<BlockMessages | null> {
    const jsm = async () => (await this.open()).jsm;
    for (let attempt = 1; ; attempt++) {
      let exec: ExecResult;
      try {
        exec = await readExecResult(jsm, msg.data);
      } catch (err) {
        if (err instanceof ExecPartsMissing && attempt < PART_ATTEMPTS && !this.closed) {
          await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
          continue;
        }
        this.logger.error({ err, seq: msg.seq, subject: msg.subject }, 'an execution result cannot be read: its events are not streamed');
        return null;
      }
      if (!Array.isArray(exec?.receipts) || typeof exec.block?.hash !== 'string') return null;
      return blockMessages(msg.seq, exec);
    }
  }
}
