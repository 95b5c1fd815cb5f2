import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface TestDatabase {
  /** Connection URL of a database that exists only for this test file. */
  url: string;
  drop(): Promise<void>;
}

function serverUrl(): string {
  const url = process.env['TEST_DATABASE_URL'];
  if (!url) {
    throw new Error("TEST_DATABASE_URL is not set: add `globals: { arbor: { postgres: true } }` to this project's jest config");
  }
  return url;
}

/** A fresh, empty database on the run's test server; drop it in afterAll. */
export async function createTestDatabase(prefix = 'arbor_test'): Promise<TestDatabase> {
  const admin = new Client({ connectionString: serverUrl() });
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: serverUrl() });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
