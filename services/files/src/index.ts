export { buildFilesApp } from './app.js';
export type { FilesDeps } from './app.js';
export { EXTERNAL_STORAGE_SOURCE, FILE_APP_SOURCE, MEMBER_GRANT } from './contracts.js';
export { ObjectStore, embeddedStoreUrl, storeSettings } from './store.js';
export type { S3Settings } from './store.js';
export { contentDisposition, downloadName, rangeOf } from './routes.js';
