import { rssMb } from './proc-stats';

/** Samples the VmRSS of some processes every 100 ms and keeps the peak. */
export class RssSampler {
  private peakMb = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(pids: () => readonly number[]) {
    this.timer = setInterval(() => {
      for (const pid of pids()) this.peakMb = Math.max(this.peakMb, rssMb(pid));
    }, 100);
  }

  /** Stops sampling; the peak in MB. */
  stop(): number {
    clearInterval(this.timer);
    return this.peakMb;
  }
}
