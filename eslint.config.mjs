// Lint for the whole workspace. Module boundaries are an error: apps depend on libs only,
// shared libs depend only on shared libs, and nothing imports an app.
import nx from '@nx/eslint-plugin';

export default [
  { ignores: ['**/dist', '**/node_modules', '**/tmp', '**/.data', '**/coverage', '.nx/**'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:feature', 'type:data', 'type:util', 'type:testing'] },
            { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:feature', 'type:data', 'type:util', 'type:testing'] },
            { sourceTag: 'type:data', onlyDependOnLibsWithTags: ['type:data', 'type:util', 'type:testing'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:testing'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:util', 'type:testing'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:util', 'type:testing', 'type:tool'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:control-plane', onlyDependOnLibsWithTags: ['scope:shared', 'scope:control-plane'] },
            { sourceTag: 'scope:sync-dispatcher', onlyDependOnLibsWithTags: ['scope:shared', 'scope:sync-dispatcher'] },
            { sourceTag: 'scope:ai-gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:ai-gateway'] },
            { sourceTag: 'scope:mcp-gateway', onlyDependOnLibsWithTags: ['scope:shared', 'scope:mcp-gateway'] },
            { sourceTag: 'scope:dev', onlyDependOnLibsWithTags: ['scope:shared', 'scope:dev'] },
            // Browser code (the UI shell) bundles nothing written for Node.js.
            { sourceTag: 'platform:browser', onlyDependOnLibsWithTags: ['platform:browser'] },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts', '**/*.mts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },
  {
    // Build and test configuration files reach across the workspace by design.
    files: ['**/jest.config.cjs', '**/webpack.config.cjs', '**/vite.config.mts', 'jest.preset.cjs'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    files: ['**/*.spec.ts', '**/*.integration-spec.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
];
