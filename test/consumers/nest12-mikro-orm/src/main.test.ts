import 'reflect-metadata';
import { AppModule } from './mikro-orm/app.module.js';
import { healthParts } from './shared-health/health.parts.js';
import { cliBins } from './shared/cli-bins.js';
import { userPath } from './shared/user-path.js';

// No terminus indicator for this stack: the relay's check covers the database.
userPath(AppModule.register(healthParts()), { health: true, database: false });
cliBins();
