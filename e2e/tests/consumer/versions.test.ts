// Versions that survive a release. Every integration declares @threatlib/core as a peer (`workspace:^`, which
// `pnpm pack` writes as `^<core's version>`): the published range must hold the core it was released with and the
// core minors after it, or the first minor release of core breaks every installed integration. Changesets (with
// onlyUpdatePeerDependentsWhenOutOfRange) bumps a peer dependent MAJOR exactly when the new core leaves that range,
// so the same check on the release plan says that a core minor forces no major.
import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedPackage, packAll, run } from './consumer-project.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('the published packages’ versions and peer ranges', () => {
  const work = mkdtempSync(join(tmpdir(), 'threatlib-versions-'));
  let packed: Map<string, PackedPackage>;

  beforeAll(async () => {
    packed = await packAll(join(work, 'tarballs'));
  }, 300_000);

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('each has a real initial version: 1.0.0 or later, where a caret range spans minors', () => {
    for (const { name, manifest } of packed.values()) {
      expect(semver.valid(manifest.version), name).not.toBeNull();
      // ^0.x.y matches one minor only (^0.0.0 matches 0.0.0 alone): a 0.x core could never release a minor.
      expect(semver.major(manifest.version), `${name}@${manifest.version}`).toBeGreaterThanOrEqual(1);
    }
  });

  it('each packed peer range on a @threatlib package holds its current version and its next minor, not its next major', () => {
    const peers = [...packed.values()].flatMap(({ name, manifest }) =>
      Object.entries(manifest.peerDependencies ?? {})
        .filter(([peer]) => peer.startsWith('@threatlib/'))
        .map(([peer, range]) => ({ name, peer, range })),
    );
    expect(peers.map(({ name, peer }) => `${name} → ${peer}`).sort()).toEqual([
      '@threatlib/cloud → @threatlib/core',
      '@threatlib/pwa → @threatlib/core',
      '@threatlib/queue → @threatlib/core',
      '@threatlib/server → @threatlib/core',
      '@threatlib/siem → @threatlib/core',
      '@threatlib/storage → @threatlib/core',
      '@threatlib/webhooks → @threatlib/core',
    ]);
    for (const { name, peer, range } of peers) {
      const current = (packed.get(peer) as PackedPackage).manifest.version;
      const where = `${name} peerDependencies["${peer}"] = "${range}" (${peer} is ${current})`;
      expect(semver.satisfies(current, range), where).toBe(true);
      expect(semver.satisfies(semver.inc(current, 'minor') as string, range), where).toBe(true);
      expect(semver.satisfies(semver.inc(current, 'major') as string, range), where).toBe(false);
    }
  });

  it('the pending changesets parse, and their release plan forces no major: every new version stays in the ranges published now', async () => {
    const plan = join(work, 'release-plan.json');
    const outcome = await run('pnpm', ['exec', 'changeset', 'status', `--output=${plan}`], {
      cwd: ROOT,
      timeoutMs: 120_000,
    });
    expect(outcome.code, `changeset status:\n${outcome.stdout}\n${outcome.stderr}`).toBe(0);
    const { releases, changesets } = JSON.parse(readFileSync(plan, 'utf8')) as {
      releases: { name: string; type: string; newVersion: string }[];
      changesets: { releases: { name: string; type: string }[] }[];
    };
    const askedMajor = new Set(
      changesets.flatMap((c) => c.releases.filter((r) => r.type === 'major').map((r) => r.name)),
    );
    for (const release of releases.filter((r) => packed.has(r.name))) {
      if (!askedMajor.has(release.name)) expect(release.type, `${release.name}'s planned release`).not.toBe('major');
    }
    const next = new Map(releases.map((r) => [r.name, r.newVersion]));
    for (const { name, manifest } of packed.values()) {
      for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) {
        const planned = next.get(peer);
        if (!peer.startsWith('@threatlib/') || planned === undefined || askedMajor.has(peer)) continue;
        expect(semver.satisfies(planned, range), `${name} (peer ${peer} ${range}) after ${peer} → ${planned}`).toBe(
          true,
        );
      }
    }
  });
});
