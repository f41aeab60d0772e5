import 'reflect-metadata';
import { AppModule } from './pg/app.module.js';
import { cliBins } from './shared/cli-bins.js';
import { userPath } from './shared/user-path.js';

userPath(AppModule.register(), { health: false });
cliBins();
