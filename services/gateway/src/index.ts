export { buildGateway, ERROR_BODY_SCHEMA } from './app.js';
export type { GatewayDeps } from './app.js';
export { toHttpError } from './errors.js';
