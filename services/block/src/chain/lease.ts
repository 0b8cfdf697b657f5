// Who proposes a chain's blocks: one validator at a time, holding a lease
// that expires (docs/network.md "Ordering").
//
// The lease is the only message of `lease.<chain>` on the network's LEASES
// stream, which keeps one message per chain and drops it PROPOSER_LEASE_MS
// after it was written. The holder renews it well before then by appending
// with the stream's expected last subject sequence, the sequence of its own
// previous renewal: a renewal after someone else took over fails, and the
// old holder stops proposing. When the holder dies its last message expires,
// and the first validator to append after an empty subject holds it.
//
// The lease keeps the validators from racing for every block; it does not
// make forks impossible on its own. Two nodes may briefly both believe they
// hold it (a renewal the server accepted late; nats-server 2.9 before 2.9.21
// can accept two concurrent appends with the same expected sequence), so
// the block stream's own fence (worker.ts: one msgID per height, and the
// expected last sequence) is what keeps one block per height.
import { PROPOSER_LEASE_MS, STREAMS, SUBJECTS, decodeJson, encodeJson, isWrongLastSequence, type BusJetStream } from '@platform/bus';
import type { ChainId, Logger } from '@platform/common';

/** what a lease message says: which node holds it, and with which key it signs blocks */
export interface LeaseRecord {
  node: string;
  proposer: string;
  /** this process's start: a restarted node takes its own old lease over, a second process of one node does not */
  instance: string;
  /** given up at a clean stop: anyone may take it at once */
  released?: true;
}

/** a holder counts on its lease for this share of the lease's life after a renewal began, leaving the rest for the renewal's round trip and clock skew */
const TRUST_SHARE = 0.6;
/** how often a lease is renewed, or looked for when it is not held */
export const LEASE_TICK_MS = Math.floor(PROPOSER_LEASE_MS / 3);

export class ProposerLease {
  /** the sequence of this holder's last renewal; 0 while not held */
  private seq = 0;
  private trustedUntil = 0;
  private readonly subject: string;

  constructor(
    private readonly o: {
      bus: BusJetStream;
      chainId: ChainId;
      record: LeaseRecord;
      logger: Logger;
    },
  ) {
    this.subject = SUBJECTS.block.lease(o.chainId);
  }

  /** Whether this node may propose now. */
  held(): boolean {
    return this.seq > 0 && Date.now() < this.trustedUntil;
  }

  /** Renews the lease when held, else takes it if nobody holds it; answers whether it is held. */
  async tick(): Promise<boolean> {
    const started = Date.now();
    try {
      if (this.seq > 0) await this.append(this.seq, started);
      else {
        const last = await this.o.bus.network.jsm.streams.getMessage(STREAMS.leases.name, { last_by_subj: this.subject }).catch(() => null);
        if (last) {
          const holder = parseRecord(last.data);
          // given up, or this node's previous process's (a restart): taken over at once;
          // another's, or another live process's of this node, expires unless renewed
          const free = holder !== null && (holder.released === true || (holder.node === this.o.record.node && holder.instance !== this.o.record.instance));
          if (!free) return false;
          await this.append(last.seq, started);
        } else await this.append(0, started);
        this.o.logger.info({ seq: this.seq }, 'this node holds the proposer lease');
      }
    } catch (err) {
      const lost = isWrongLastSequence(err);
      if (this.seq > 0) this.o.logger.warn(lost ? {} : { err }, lost ? 'the proposer lease passed to another node' : 'the proposer lease could not be renewed');
      // a renewal whose fate is unknown is treated as lost: the block fence covers the rest of its life
      this.seq = 0;
      this.trustedUntil = 0;
    }
    return this.held();
  }

  private async append(expected: number, started: number): Promise<void> {
    this.seq = await this.publish(expected, this.o.record);
    this.trustedUntil = started + PROPOSER_LEASE_MS * TRUST_SHARE;
  }

  private async publish(expected: number, record: LeaseRecord): Promise<number> {
    return (await this.o.bus.network.js.publish(this.subject, encodeJson(record), { expect: { lastSubjectSequence: expected } })).seq;
  }

  /** Gives the lease up (a clean stop): another validator takes over at once instead of after expiry. */
  async release(): Promise<void> {
    if (this.seq === 0) return;
    const seq = this.seq;
    this.seq = 0;
    this.trustedUntil = 0;
    await this.publish(seq, { ...this.o.record, released: true }).catch(() => {});
  }
}

function parseRecord(data: Uint8Array): LeaseRecord | null {
  try {
    const value = decodeJson<Partial<LeaseRecord>>(data);
    return typeof value.node === 'string' && typeof value.instance === 'string' && typeof value.proposer === 'string' ? (value as LeaseRecord) : null;
  } catch {
    return null;
  }
}
