// The node in its network (the spec's 9.0 "metadata endpoint for node key,
// validators and sync status" and 11.1 "endpoints for network peer
// information"; docs/network.md): answered by the block service, with the
// private chains the caller may not see left out.
import type { FastifyInstance } from 'fastify';
import { BLOCK, CHAINS, call, type NatsConnection, type NodeMetadataRecord } from '@platform/bus';
import type { NodeConfig } from '@platform/common';
import { principalOf } from '../auth.js';

const errorResponse = { $ref: 'ErrorBody#' } as const;
const address = { type: 'string', pattern: '^[0-9a-f]{40}$' } as const;

const validatorSchema = {
  type: 'object',
  required: ['node', 'organization', 'address'],
  properties: { node: { type: 'string' }, organization: { type: 'string' }, address },
} as const;

const peerSchema = {
  type: 'object',
  required: ['node', 'organization', 'address', 'connected'],
  properties: { ...validatorSchema.properties, connected: { type: 'boolean', description: "whether its NATS server is in the cluster now, as the network's block stream sees it" } },
} as const;

const metadataSchema = {
  type: 'object',
  required: ['node', 'nodePubKey', 'nodeAddress', 'validators', 'isSynced', 'networkID', 'urls', 'chains'],
  properties: {
    node: { type: 'string', description: "the node's name in its network" },
    organization: { type: ['string', 'null'] },
    nodePubKey: { type: 'string', description: "the block-signing key's public key, uncompressed secp256k1, hex" },
    nodeAddress: { ...address, description: "the block-signing key's address: what the validators list names" },
    validators: { type: 'array', items: validatorSchema, description: 'who may propose blocks; empty on a node of its own, whose own key does' },
    isSynced: { type: 'boolean', description: 'every chain listed has applied the last block the network ordered, and none is halted' },
    orderingLeader: { type: ['string', 'null'], description: "the node whose NATS server leads the blocks stream now: every append goes through it first" },
    networkID: { type: 'string', description: "the hash of the main chain's genesis: nodes of one network share it" },
    urls: {
      type: 'object',
      properties: { rest: { type: 'string' }, vault: { type: 'string' }, identity: { type: ['string', 'null'] } },
    },
    chains: {
      type: 'array',
      description: 'the main chain, and the private chains the caller is a member of',
      items: {
        type: 'object',
        required: ['chainId', 'height', 'hash', 'stateRoot', 'networkHeight', 'agreedHeight', 'proposer', 'halted'],
        properties: {
          chainId: { type: 'string', description: "'' for the main chain" },
          height: { type: 'integer', description: 'the last block applied on this node' },
          hash: { type: 'string' },
          stateRoot: { type: 'string', description: "this node's state root after that block" },
          networkHeight: { type: 'integer', description: 'the last block the network ordered, as far as this node has heard' },
          agreedHeight: {
            type: ['integer', 'null'],
            description: 'the highest block a majority of the validators attested with the hash and state root this node applied (-1 before any); null on a node of its own',
          },
          proposer: { type: 'boolean', description: "whether this node proposes the chain's blocks now" },
          halted: { type: ['string', 'null'], description: 'why this node stopped applying the chain, or null' },
        },
      },
    },
  },
} as const;

export function networkRoutes(app: FastifyInstance, deps: { nc: NatsConnection; config: Partial<Pick<NodeConfig, 'host' | 'port' | 'vaultPort' | 'oauthDiscoveryUrl'>> }): void {
  const { nc } = deps;
  /** the node's metadata with only the chains the caller may see */
  const visibleMetadata = async (request: Parameters<typeof principalOf>[0]): Promise<NodeMetadataRecord> => {
    const { username, org } = principalOf(request);
    const [metadata, { chainIds }] = await Promise.all([
      call(nc, BLOCK.metadata, {}, { requestId: request.id }),
      call(nc, CHAINS.visibleTo, { username, organization: org }, { requestId: request.id }),
    ]);
    const visible = new Set(['', ...chainIds]);
    return { ...metadata, chains: metadata.chains.filter((c) => visible.has(c.chainId)) };
  };

  app.get(
    '/platform-api/eth/v1.2/metadata',
    {
      schema: {
        tags: ['network'],
        summary: "The node: its key, the network's validators, and whether it is in sync",
        description:
          "`nodePubKey` and `nodeAddress` are the node's block-signing key; `validators` the network's (from the main genesis); `isSynced` whether every chain listed applied the last block the network ordered; per chain, this node's applied height, hash and state root against the network's head.",
        response: { 200: metadataSchema, 401: errorResponse },
      },
    },
    async (request) => {
      const m = await visibleMetadata(request);
      const { host: listen = '127.0.0.1', port, vaultPort, oauthDiscoveryUrl } = deps.config;
      // what a client on this machine reaches: a wildcard listen address is no address to call
      const host = listen === '0.0.0.0' || listen === '::' ? '127.0.0.1' : listen.includes(':') ? `[${listen}]` : listen;
      return {
        node: m.node,
        organization: m.organization,
        nodePubKey: m.nodePubKey,
        nodeAddress: m.nodeAddress,
        validators: m.validators,
        isSynced: m.chains.every((c) => c.halted === null && c.height >= c.networkHeight),
        orderingLeader: m.orderingLeader,
        networkID: m.networkId,
        urls: {
          ...(port !== undefined ? { rest: `http://${host}:${port}/platform/v2.3` } : {}),
          ...(vaultPort !== undefined ? { vault: `http://${host}:${vaultPort}` } : {}),
          identity: oauthDiscoveryUrl ?? null,
        },
        chains: m.chains,
      };
    },
  );

  app.get(
    '/platform-api/eth/v1.2/peers',
    {
      schema: {
        tags: ['network'],
        summary: 'The other nodes of the network',
        description: "Each other validator's node, its organization and block-signing address, and whether its NATS server is connected to the cluster now. Empty on a node of its own.",
        response: { 200: { type: 'array', items: peerSchema }, 401: errorResponse },
      },
    },
    async (request) => {
      principalOf(request);
      return (await call(nc, BLOCK.metadata, {}, { requestId: request.id })).peers;
    },
  );
}
