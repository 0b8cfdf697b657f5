// `POST /bloc/v2.2/x509/createCert` (the platform's release 7.9): an
// administrator has the node's CA issue a certificate for a public key the
// vault does not hold, so that a raw-key user can register it with a raw
// transaction. Administrators: the usernames in ADMIN_USERS, or a token
// carrying the `admin` role (`roles`, or Keycloak's `realm_access.roles`).
import type { FastifyInstance } from 'fastify';
import { IDENTITY, call, type NatsConnection } from '@platform/bus';
import { ADMIN_ROLE, isAdministrator } from '@platform/auth';
import { PlatformError, type NodeConfig } from '@platform/common';
import { principalOf } from '../auth.js';

export interface X509RouteDeps {
  nc: NatsConnection;
  config: Pick<NodeConfig, 'adminUsers'>;
}

const errorResponse = { $ref: 'ErrorBody#' } as const;
const field = { type: 'string', maxLength: 64 } as const;

const createCertBody = {
  type: 'object',
  required: ['subject'],
  properties: {
    subject: {
      type: 'object',
      required: ['commonName', 'organization', 'pubKey'],
      properties: {
        commonName: field,
        organization: field,
        organizationUnit: field,
        country: { type: 'string', description: 'two capital letters (ISO 3166)' },
        pubKey: { type: 'string', maxLength: 4096, description: 'the secp256k1 public key the certificate is for: PEM `PUBLIC KEY` (or hex)' },
      },
    },
    parentCertificate: { type: 'string', maxLength: 16384, description: "the issuing certificate (PEM): this node issues only under its own CA, so only the node CA's certificate is accepted" },
  },
} as const;

interface CreateCertBody {
  subject: { commonName: string; organization: string; organizationUnit?: string; country?: string; pubKey: string };
  parentCertificate?: string;
}

const canonical = (pem: string) => pem.replace(/\s+/g, '');

export function x509Routes(app: FastifyInstance, deps: X509RouteDeps): void {
  app.post<{ Body: CreateCertBody }>(
    '/bloc/v2.2/x509/createCert',
    {
      schema: {
        tags: ['identity'],
        summary: "Issues an X.509 certificate signed by the node's CA (administrators)",
        description:
          'Answers the certificate as PEM text. The certificate is for `subject.pubKey` (secp256k1); its owner registers it with a transaction from that key calling `registerCertificate` at 0000000000000000000000000000000000000509.',
        body: createCertBody,
        response: {
          200: { description: 'the certificate, PEM', content: { 'application/x-pem-file': { schema: { type: 'string' } } } },
          400: errorResponse,
          401: errorResponse,
          403: errorResponse,
          422: errorResponse,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      if (!isAdministrator(principal, deps.config.adminUsers)) {
        throw new PlatformError('FORBIDDEN', `${principal.username} may not issue certificates: createCert is for administrators (ADMIN_USERS, or the "${ADMIN_ROLE}" role)`);
      }
      const { subject, parentCertificate } = request.body;
      if (parentCertificate !== undefined) {
        const ca = await call(deps.nc, IDENTITY.ca, {}, { requestId: request.id });
        if (canonical(parentCertificate) !== canonical(ca.certificate)) {
          throw new PlatformError('PARENT_CERTIFICATE_FOREIGN', "this node issues certificates only under its own CA: parentCertificate must be the node CA's certificate, or absent", { field: 'parentCertificate' });
        }
      }
      const issued = await call(
        deps.nc,
        IDENTITY.issue,
        {
          publicKey: subject.pubKey,
          subject: { commonName: subject.commonName, organization: subject.organization, ...(subject.organizationUnit ? { organizationalUnit: subject.organizationUnit } : {}), ...(subject.country ? { country: subject.country } : {}) },
        },
        { requestId: request.id },
      );
      return reply.type('application/x-pem-file').send(issued.certificate);
    },
  );
}
