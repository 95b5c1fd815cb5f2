module.exports = require('../../tools/build/webpack-app.cjs')(__dirname);
