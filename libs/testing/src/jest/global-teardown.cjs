module.exports = async function globalTeardown() {
  const running = globalThis.__ARBOR_TEST_SERVICES__ || [];
  await Promise.all(running.map((service) => service.stop()));
};
