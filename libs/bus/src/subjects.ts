// Every NATS subject of the node, in one place. A subject is part of the
// contract between services: change one here and every user changes with it.
import { MAIN_CHAIN, type ChainId } from '@platform/common';

/** The token of a chain in subjects: `main` for the main chain, else its 64-hex ID. */
export function chainToken(chainId: ChainId): string {
  return chainId === MAIN_CHAIN ? 'main' : chainId;
}

export const SUBJECTS = {
  vault: {
    keyCreate: 'vault.key.create',
    keyGet: 'vault.key.get',
    sign: 'vault.sign',
    users: 'vault.users',
    /** certificates issued by the node's CA, whose key the vault keeps */
    certIssue: 'vault.cert.issue',
    certCa: 'vault.cert.ca',
    /** the CA's signature of a registration transaction */
    certSign: 'vault.cert.sign',
  },
  tx: {
    submit: 'tx.submit',
    /** a certificate's registration, sent from its issuer's account */
    register: 'tx.register',
    /** JetStream: transactions admitted for a chain, in admission order */
    admitted: (chainId: ChainId) => `tx.admitted.${chainToken(chainId)}`,
    /** core NATS: the transactions of a recorded block reached their final status (TxDoneNotice) */
    done: 'tx.done',
  },
  block: {
    /** JetStream: the ordered blocks of a chain */
    ordered: (chainId: ChainId) => `block.${chainToken(chainId)}`,
    /** JetStream: the lease of a chain's proposer */
    lease: (chainId: ChainId) => `lease.${chainToken(chainId)}`,
    /** JetStream: what a node computed at each height of a chain (`*` for every node) */
    attestation: (chainId: ChainId, node: string) => `attest.${chainToken(chainId)}.${node}`,
  },
  /** the block service's request/reply endpoints: outside `block.>`, which the BLOCKS stream captures */
  blockService: {
    account: 'block-svc.account',
    /** the account lookup of the node's own services, without a user (the funds check of admission) */
    nodeAccount: 'block-svc.account.node',
    compile: 'block-svc.compile',
    checkGenesis: 'block-svc.genesis-check',
    /** a new private chain's genesis sealed for its member nodes */
    sealGenesis: 'block-svc.genesis-seal',
    /** a private chain's genesis, opened: for the chains service of a member node */
    chainGenesis: 'block-svc.genesis-open',
    /** a private chain's key: for the transaction service, which seals what it publishes */
    chainKey: 'block-svc.chain-key',
    /** the certificate registry's view of an address */
    identity: 'block-svc.identity',
  },
  exec: {
    /** JetStream: this node's execution results of a chain's blocks */
    results: (chainId: ChainId) => `exec.${chainToken(chainId)}`,
  },
  chains: {
    /** JetStream: a private chain's genesis (outside `chains.*`, the chains service's request subjects) */
    genesis: (chainId: ChainId) => `genesis.${chainToken(chainId)}`,
    /** JetStream: a private chain's key wrapped for a node that became a member after its genesis (a governance event) */
    genesisKey: (chainId: ChainId, node: string) => `genesis.${chainToken(chainId)}.key.${node}`,
    /** JetStream: a private chain's new key, from the block at `epoch` on, wrapped for the nodes that stay (an organization left it) */
    genesisEpoch: (chainId: ChainId, epoch: number | '*') => `genesis.${chainToken(chainId)}.epoch.${epoch}`,
    /** core NATS, no body: who may see which chain has just changed (a chain stored, governance events applied); answers remembered elsewhere are stale */
    visibilityChanged: 'chains-notice.visibility',
  },
} as const;

/** Names of the request/reply services, as `@nats-io/services` announces them. */
export const SERVICE_NAMES = {
  vault: 'vault',
  tx: 'tx',
  block: 'block',
  cirrus: 'cirrus',
  chains: 'chains',
} as const;
export type ServiceName = (typeof SERVICE_NAMES)[keyof typeof SERVICE_NAMES];
