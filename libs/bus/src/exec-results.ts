// How an execution result travels, whatever its size. A block's ExecResult
// that fits in a message (most: the server's max_payload less a margin) is
// published on `exec.<chain>` as it is. A larger one — a block of many
// transactions near the execution limits, or one contract whose every state
// change carries a large array — is cut into parts on the EXEC_PARTS stream
// (`exec-part.<chain>.<height>.<i>`), and `exec.<chain>` gets a reference
// to them instead: the same one message per block, in the same order, so the
// consumers' ordering (cirrus applies by stream sequence) is unchanged, and no
// message ever exceeds the limit. Before this a result over max_payload could
// never be published: the block service retried it forever and the chain
// stopped.
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { ChainId, ExecResult } from '@platform/common';
import { STREAMS } from './streams.js';
import { SUBJECTS, chainToken } from './subjects.js';

/** What `exec.<chain>` carries for a result published in parts. */
export interface ExecResultRef {
  chainId: ChainId;
  block: ExecResult['block'];
  ref: {
    /** the parts' subject prefix: part i is `<subject>.<i>` on EXEC_PARTS */
    subject: string;
    parts: number;
    /** bytes of the whole result's JSON */
    bytes: number;
  };
}

/** room left in a message for headers (msgID, JetStream's own) */
const HEADROOM = 64 * 1024;

export function execPartSubject(chainId: ChainId, height: number): string {
  return `exec-part.${chainToken(chainId)}.${height}`;
}

/**
 * Publishes a block's result (its JSON text) on `exec.<chain>`, msgID
 * `<chain>:<height>`, in parts when it does not fit in one message. Every
 * message has a msgID, so a retry after an unknown outcome publishes nothing
 * twice; a part published again after the duplicate window is the same bytes
 * under the same subject, and readers take the last.
 */
/** Answers the number of parts (0: published as one message). */
export async function publishExecResult(js: JetStreamClient, exec: { chainId: ChainId; height: number; json: string }, maxPayload: number): Promise<number> {
  const token = chainToken(exec.chainId);
  const data = new TextEncoder().encode(exec.json);
  const msgID = `${token}:${exec.height}`;
  const fits = Math.max(Math.floor(maxPayload / 2), maxPayload - HEADROOM);
  if (data.length <= fits) {
    await js.publish(SUBJECTS.exec.results(exec.chainId), data, { msgID });
    return 0;
  }
  // a part read back through the stream API travels base64-encoded in JSON: half the limit keeps it under
  const partBytes = Math.max(1024, Math.floor(fits / 2));
  const subject = execPartSubject(exec.chainId, exec.height);
  const parts = Math.ceil(data.length / partBytes);
  for (let i = 0; i < parts; i++) {
    await js.publish(`${subject}.${i}`, data.subarray(i * partBytes, (i + 1) * partBytes), { msgID: `${msgID}:${i}` });
  }
  const parsed = JSON.parse(exec.json) as ExecResult;
  const ref: ExecResultRef = { chainId: exec.chainId, block: parsed.block, ref: { subject, parts, bytes: data.length } };
  await js.publish(SUBJECTS.exec.results(exec.chainId), new TextEncoder().encode(JSON.stringify(ref)), { msgID });
  return parts;
}

/** A result whose parts cannot be read (yet): retried by the consumer, never skipped. */
export class ExecPartsMissing extends Error {
  override readonly name = 'ExecPartsMissing';
}

/**
 * The ExecResult a message of `exec.<chain>` stands for: the message itself,
 * or the parts it refers to, joined. Throws SyntaxError for a message that is
 * not JSON, ExecPartsMissing when a part cannot be read.
 */
export async function readExecResult(jsm: () => Promise<JetStreamManager>, data: Uint8Array): Promise<ExecResult> {
  const outer = JSON.parse(new TextDecoder().decode(data)) as ExecResult | ExecResultRef;
  if (!outer || typeof outer !== 'object' || !('ref' in outer) || !outer.ref) return outer as ExecResult;
  const { subject, parts, bytes } = outer.ref;
  const manager = await jsm();
  const whole = new Uint8Array(bytes);
  let at = 0;
  for (let i = 0; i < parts; i++) {
    const part = await manager.streams.getMessage(STREAMS.execParts.name, { last_by_subj: `${subject}.${i}` }).catch((err: unknown) => {
      throw new ExecPartsMissing(`part ${i} of ${parts} of the execution result at ${subject} cannot be read`, { cause: err });
    });
    if (!part || at + part.data.length > bytes) throw new ExecPartsMissing(`part ${i} of ${parts} of the execution result at ${subject} is missing or too long`);
    whole.set(part.data, at);
    at += part.data.length;
  }
  if (at !== bytes) throw new ExecPartsMissing(`the parts of the execution result at ${subject} hold ${at} bytes, the reference says ${bytes}`);
  return JSON.parse(new TextDecoder().decode(whole)) as ExecResult;
}

/** Whether a message of `exec.<chain>` is a reference (without reading its parts). */
export function isExecResultRef(value: unknown): value is ExecResultRef {
  return typeof value === 'object' && value !== null && 'ref' in value && typeof (value as ExecResultRef).ref?.subject === 'string';
}
