// tsc does not keep the executable bit; the published `bin` needs it.
import { chmodSync } from 'node:fs';

for (const file of process.argv.slice(2)) chmodSync(file, 0o755);
