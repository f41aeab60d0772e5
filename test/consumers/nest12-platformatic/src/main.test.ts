import 'reflect-metadata';
import { AppModule } from './shared/app.module.js';
import { cliBins } from './shared/cli-bins.js';
import { userPath } from './shared/user-path.js';

// The inbox consumes through PlatformaticInboxServer (@platformatic/kafka), same options.
userPath(AppModule.register(), { health: false, client: 'platformatic' });
cliBins();
