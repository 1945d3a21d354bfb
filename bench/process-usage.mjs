// Preloaded (`node --import`) into a bench's child process: when it exits, writes its CPU time
// and peak resident memory to the file named by CTXMEM_BENCH_USAGE, so the bench can report
// whole-process figures without `/usr/bin/time`.
import { writeFileSync } from 'node:fs';

const path = process.env.CTXMEM_BENCH_USAGE;
if (path) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      path,
      JSON.stringify({
        cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
        maxRssBytes: usage.maxRSS * 1024,
      }),
    );
  });
}
