import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.data/**', '.tmp/**', '.build/**', '**/dist/**', '**/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', AbortController: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', fetch: 'readonly', performance: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // the dashboard's browser modules
    files: ['services/gateway/dashboard/src/**/*.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', location: 'readonly', history: 'readonly', sessionStorage: 'readonly', crypto: 'readonly', btoa: 'readonly', atob: 'readonly', URLSearchParams: 'readonly', EventSource: 'readonly', TextDecoderStream: 'readonly', Event: 'readonly' } },
  },
);
