import { PGlite } from '@electric-sql/pglite';
const a = await PGlite.create();
await a.query('select 1');
const p = await a.clone();
const un = await p.listen('banshu_recorder_tasks', (x) => console.log('heard', JSON.stringify(x)));
await p.query(`select pg_notify('banshu_recorder_tasks', 'record:123')`);
await p.transaction(async (tx) => { await tx.query(`select pg_notify($1, $2)`, ['banshu_recorder_tasks', 'live:9']); });
await new Promise(r=>setTimeout(r,200));
console.log('done');
