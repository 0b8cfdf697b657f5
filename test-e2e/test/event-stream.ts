// A client of the live events stream (`GET /platform/v2.3/events`) for the
// tests and the bench: node:http, so that a test decides when the response is
// read (a slow consumer is one that stops reading), and the SSE text parsed
// as the EventSource specification does (fields, blank line ends a message,
// `:` lines are comments).
import { request as httpRequest, type IncomingMessage } from 'node:http';

export interface SseMessage {
  id: string | null;
  event: string;
  data: any;
  /** when the message was parsed (ms, performance.now()) */
  at: number;
}

export interface EventStream {
  status: number;
  headers: IncomingMessage['headers'];
  /** every message so far, in order */
  messages: SseMessage[];
  comments: string[];
  /** the body as text, when the answer is not a stream (an error body) */
  body: string;
  /** resolves when the response ends */
  ended: Promise<void>;
  /** the first message from `from` on (an index into messages) that satisfies `ok` */
  next(ok: (m: SseMessage) => boolean, timeoutMs?: number, from?: number): Promise<SseMessage>;
  /** the messages until one satisfies `ok` (inclusive) */
  until(ok: (m: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage[]>;
  pause(): void;
  resume(): void;
  close(): void;
}

export function openEvents(gatewayUrl: string, query = '', headers: Record<string, string> = {}): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gatewayUrl}/platform/v2.3/events${query}`, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const messages: SseMessage[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      let buffer = '';
      let body = '';
      const ended = new Promise<void>((done) => {
        res.once('end', done);
        res.once('close', done);
        res.once('error', () => done());
      });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) {
          body += chunk;
          return;
        }
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line !== '') {
              const colon = line.indexOf(':');
              const name = colon < 0 ? line : line.slice(0, colon);
              const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
              fields[name] = name in fields && name === 'data' ? `${fields[name]}\n${value}` : value;
            }
          }
          if (fields.data !== undefined) messages.push({ id: fields.id ?? null, event: fields.event ?? 'message', data: JSON.parse(fields.data), at: performance.now() });
        }
        for (const wake of [...waiters]) wake();
      });
      const stream: EventStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages,
        comments,
        get body() {
          return body;
        },
        ended,
        next(ok, timeoutMs = 30_000, from = 0) {
          return new Promise((found, fail) => {
            const look = () => {
              const hit = messages.slice(from).find(ok);
              if (!hit) return false;
              clear();
              found(hit);
              return true;
            };
            const timer = setTimeout(() => {
              clear();
              fail(new Error(`no such message within ${timeoutMs} ms; got ${messages.length}: ${JSON.stringify(messages.slice(-5).map((m) => [m.id, m.event]))}`));
            }, timeoutMs);
            const clear = () => {
              clearTimeout(timer);
              waiters.delete(wake);
            };
            const wake = () => void look();
            if (look()) return;
            waiters.add(wake);
            void ended.then(() => {
              if (!look()) {
                clear();
                fail(new Error(`the stream ended; got ${messages.length} messages`));
              }
            });
          });
        },
        async until(ok, timeoutMs) {
          const hit = await stream.next(ok, timeoutMs);
          return messages.slice(0, messages.indexOf(hit) + 1);
        },
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      };
      resolve(stream);
    });
    req.on('error', reject);
    req.end();
  });
}
