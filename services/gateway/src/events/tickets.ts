// Tickets for browsers' EventSource, which cannot send an Authorization
// header: `POST /platform/v2.3/events/ticket` (with the bearer token) answers
// a random ticket standing for the token's user for TICKET_TTL_MS, which
// `GET /platform/v2.3/events?ticket=…` takes instead of the header. A ticket
// may open streams until it expires (EventSource reconnects by itself with
// the same URL); the streams it opened end when the token would have. Kept in
// this gateway's memory only: the node runs one gateway, and a restart asks
// clients for a new ticket (401), not for a new token. The request log never
// shows a query string, so a ticket is not logged.
import { randomBytes } from 'node:crypto';
import type { Principal } from '@platform/auth';
import { PlatformError } from '@platform/common';

export const TICKET_TTL_MS = 60_000;
/** tickets held at once: a client asking for more than this many a minute pushes out the oldest */
const MAX_TICKETS = 100_000;

export class EventTickets {
  private readonly tickets = new Map<string, { principal: Principal; until: number }>();

  issue(principal: Principal): { ticket: string; expiresIn: number } {
    const now = Date.now();
    for (const [ticket, held] of this.tickets) {
      if (held.until > now && this.tickets.size < MAX_TICKETS) break;
      this.tickets.delete(ticket);
    }
    const ticket = randomBytes(32).toString('base64url');
    this.tickets.set(ticket, { principal, until: now + TICKET_TTL_MS });
    return { ticket, expiresIn: TICKET_TTL_MS / 1000 };
  }

  /** The user a ticket stands for; TOKEN_INVALID when it is unknown or expired. */
  redeem(ticket: string): Principal {
    const held = this.tickets.get(ticket);
    if (!held || held.until <= Date.now()) throw new PlatformError('TOKEN_INVALID', 'the ticket is unknown or expired: ask POST /platform/v2.3/events/ticket for a new one');
    return held.principal;
  }
}
