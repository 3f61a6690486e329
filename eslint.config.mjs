// ESLint flat config. Deliberately not the type-checked preset: lint stays fast and needs no
// TypeScript program. Type errors are caught by `npm run typecheck`.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// `globals` is only a transitive dependency, so the few Node globals that plain .js/.mjs files
// use are listed here. TypeScript files do not need them: typescript-eslint turns off no-undef.
const nodeGlobals = {
  process: 'readonly',
  console: 'readonly',
  Buffer: 'readonly',
  URL: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
  setInterval: 'readonly',
  clearInterval: 'readonly',
  setImmediate: 'readonly',
  clearImmediate: 'readonly',
  structuredClone: 'readonly',
  AbortController: 'readonly',
};
const commonjsGlobals = {
  module: 'writable',
  exports: 'writable',
  require: 'readonly',
  __dirname: 'readonly',
  __filename: 'readonly',
};

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      '.next/**',
      '.oxmq/**',
      'coverage/**',
      'next-env.d.ts',
      '**/*.lua',
      '**/*.tsbuildinfo',
      'engine/dist/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: nodeGlobals },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // CommonJS files such as next.config.js ("type": "commonjs" in package.json).
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...nodeGlobals, ...commonjsGlobals } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
