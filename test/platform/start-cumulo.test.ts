import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { startCumulo } from '../../src/start-cumulo.ts';
import { tempDir } from '../helpers/app.ts';

test('startCumulo: ready when it resolves on a free port and a throwaway data dir; snapshot, restore, reset and the clock; stop closes it all', async (t) => {
  const cumulo = await startCumulo();
  t.after(() => cumulo.stop());
  assert.match(cumulo.url, /^http:\/\/127\.0\.0\.1:[1-9]\d*\/v4$/);
  assert.match(cumulo.token, /^[0-9a-f]{64}$/);
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${cumulo.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${cumulo.token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as { data?: { label: string }[]; username?: string } };
  };
  const tags = async () => ((await api('GET', '/tags')).body.data ?? []).map((tag) => tag.label).sort();

  assert.equal((await api('GET', '/profile')).body.username, 'admin');
  assert.equal((await api('POST', '/tags', { label: 'kept' })).status, 200);
  const name = await cumulo.snapshot();
  assert.equal((await api('POST', '/tags', { label: 'later' })).status, 200);
  assert.deepEqual(await tags(), ['kept', 'later']);
  await cumulo.restore(name);
  assert.deepEqual(await tags(), ['kept'], 'the state the snapshot kept');
  await assert.rejects(cumulo.restore('snapshot-99'), /no snapshot named "snapshot-99"/);

  const before = Date.parse(`${(await cumulo.advanceClock(0)).now}Z`);
  const moved = await cumulo.advanceClock(3600);
  assert.equal(Date.parse(`${moved.now}Z`) - before >= 3600_000, true, JSON.stringify(moved));
  const target = new Date(Date.parse(`${moved.now}Z`) + 86_400_000);
  assert.equal(Date.parse(`${(await cumulo.setClock(target)).now}Z`) >= target.getTime(), true);
  await assert.rejects(cumulo.setClock('2001-01-01T00:00:00Z'), /moves only forward/);

  await cumulo.reset();
  assert.deepEqual(await tags(), [], 'reset: as just installed');
  assert.equal((await api('GET', '/profile')).status, 200, "admin's token is made again");

  await cumulo.stop();
  await assert.rejects(fetch(`${cumulo.url}/regions`), 'nothing listens any more');
  assert.equal(fs.existsSync(cumulo.dataDir), false, 'the throwaway data dir is gone');
});

test('startCumulo with a data dir and a token of the caller: both kept after stop, and the next start finds the data', async (t) => {
  const dataDir = tempDir(t);
  const token = 'c'.repeat(40);
  const first = await startCumulo({ dataDir, token });
  const created = await fetch(`${first.url}/tags`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ label: 'lasting' }),
  });
  assert.equal(created.status, 200);
  await first.stop();
  assert.ok(fs.existsSync(dataDir), 'a data dir given is kept');

  const second = await startCumulo({ dataDir, token });
  t.after(() => second.stop());
  const listed = await fetch(`${second.url}/tags`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await listed.json()) as { data: { label: string }[] };
  assert.deepEqual(
    body.data.map((tag) => tag.label),
    ['lasting'],
  );
});
