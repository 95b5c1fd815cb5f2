// The one webpack setup of every app: dist/apps/<app>/main.js, runnable with node, packages left
// in node_modules. ts-loader (not esbuild) because Nest's DI needs emitted decorator metadata;
// type checking is the typecheck target's job.
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { basename, join } = require('node:path');

module.exports = function appWebpackConfig(appDir) {
  const outputPath = join(__dirname, '../../dist/apps', basename(appDir));
  return {
    output: { path: outputPath, clean: true },
    plugins: [
      new NxAppWebpackPlugin({
        target: 'node',
        compiler: 'tsc',
        main: join(appDir, 'src/main.ts'),
        outputPath,
        tsConfig: join(appDir, 'tsconfig.app.json'),
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
};
