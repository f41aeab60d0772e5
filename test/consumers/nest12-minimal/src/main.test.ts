import 'reflect-metadata';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppModule } from './shared/app.module.js';
import { cliBins } from './shared/cli-bins.js';
import { userPath } from './shared/user-path.js';

test('neither @nestjs/terminus nor prom-client is installed', async () => {
  for (const name of ['@nestjs/terminus', 'prom-client']) {
    await assert.rejects(import(name), { code: 'ERR_MODULE_NOT_FOUND' }, `${name} is installed`);
  }
});

userPath(AppModule.register(), { health: false });
cliBins();
