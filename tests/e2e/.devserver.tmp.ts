import { startTestServer } from '#tests/support/server.ts';
const s = await startTestServer({ pages: true });
console.log('URL', s.url);
process.on('SIGTERM', () => { void s.close().then(() => process.exit(0)); });
