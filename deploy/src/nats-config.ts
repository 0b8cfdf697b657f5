// A node's NATS server configuration in Kubernetes, from the launcher's own
// generators (natsServerConfig, natsAccounts): the server named after the
// node, its placement tag, its cluster routes with the network's route
// password, and the accounts - the NETWORK account, this node's with its
// services' users and their permissions, and every other member's. The chart
// runs this at each start of the NATS pod (runtime/nats-config.ts), so the
// permissions always match the image the services run.
import { ensureBusCredentials, natsAccounts } from '@platform/bus';
import { NODE_NAME_PATTERN } from '@platform/common';
import { NETWORK_ROUTE_USER, natsServerConfig } from '@platform/launcher';

/** The user every route authenticates as; the launcher's network uses the same. */
export const ROUTE_USER = NETWORK_ROUTE_USER;
/** The route port of every server of the chart. */
export const CLUSTER_PORT = 6222;

export interface NatsConfigInput {
  node: string;
  /** every node of the network, this one included */
  members: string[];
  clusterName: string;
  /** the other servers' route addresses, host:port */
  routes: string[];
  routePassword: string;
  /** the node's services' nkey seeds (`<user>.nk`): only their public keys go into the configuration */
  credentialsDir: string;
  /** where the server accepts routes: the pod's IP (the advertised one), else every address */
  listenHost: string;
  /** host:port the nodes of other clusters reach its routes at (NATS_CLUSTER_ADVERTISE), when not the pod's address */
  advertise?: string;
}

const list = (text: string | undefined) => (text ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');

/** The input from the NATS pod's environment (the chart's init container); a missing or bad variable throws, naming it. */
export function natsConfigInputFromEnv(env: NodeJS.ProcessEnv): NatsConfigInput {
  const need = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) throw new Error(`${name} is required`);
    return value;
  };
  const node = need('NODE_NAME');
  const members = list(env.NETWORK_MEMBERS);
  for (const name of [node, ...members]) if (!NODE_NAME_PATTERN.test(name)) throw new Error(`"${name}" is not a node name (${NODE_NAME_PATTERN})`);
  if (!members.includes(node)) throw new Error(`NETWORK_MEMBERS (${members.join(', ')}) must name this node, ${node}`);
  return { node, members, clusterName: need('NATS_CLUSTER_NAME'), routes: list(env.NATS_ROUTES), routePassword: need('ROUTE_PASSWORD'), credentialsDir: need('NATS_CREDENTIALS_DIR'), listenHost: env.POD_IP?.trim() || '0.0.0.0', ...(env.NATS_CLUSTER_ADVERTISE?.trim() ? { advertise: env.NATS_CLUSTER_ADVERTISE.trim() } : {}) };
}

export function natsConfig(input: NatsConfigInput): string {
  const users = ensureBusCredentials(input.credentialsDir, { create: false }).map(({ user, nkey }) => ({ user, nkey }));
  const accounts = natsAccounts({ node: input.node, users, otherNodes: input.members.filter((m) => m !== input.node) });
  const server = natsServerConfig({
    node: input.node,
    accounts,
    host: input.listenHost,
    cluster: { name: input.clusterName, port: CLUSTER_PORT, user: ROUTE_USER, password: input.routePassword, routes: input.routes, ...(input.advertise ? { advertise: input.advertise } : {}) },
  });
  // lame duck mode (the pod's preStop): clients leave over 30 s, within the pod's 60 s grace
  return `${server}lame_duck_duration: "30s"\nlame_duck_grace_period: "5s"\n`;
}
