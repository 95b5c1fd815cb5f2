const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('node:path');

// One file, dist/apps/ai-gateway/main.js, runnable with node; packages stay in node_modules.
module.exports = {
  output: { path: join(__dirname, '../../dist/apps/ai-gateway'), clean: true },
  plugins: [
    new NxAppWebpackPlugin({
      target: 'node',
      compiler: 'tsc',
      main: join(__dirname, 'src/main.ts'),
      outputPath: join(__dirname, '../../dist/apps/ai-gateway'),
      tsConfig: join(__dirname, 'tsconfig.app.json'),
      outputFileName: 'main.js',
      outputHashing: 'none',
      externalDependencies: 'all',
      skipTypeChecking: true,
      optimization: false,
      sourceMap: true,
      generatePackageJson: false,
    }),
  ],
};
