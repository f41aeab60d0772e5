/**
 * Test entry: `relay-child.ts` in a process where the packages named in BLOCK_MODULES
 * (comma-separated, for example `@nestjs/terminus,prom-client`) cannot be resolved, as on a
 * machine where those optional peers are not installed. The block is in place before the
 * relay's first import.
 */
import { blockModules } from '../../../test/support/block-modules';

blockModules((process.env.BLOCK_MODULES ?? '').split(','));
// eslint-disable-next-line @typescript-eslint/no-require-imports -- must load after the block
require('./relay-child');
