// What the benches' stand-in executors share: a cluster on which every output is there and
// fresh, every check passes and nothing else is read or written. Each bench's executor extends
// it with its own submit and observe, and may give it a workdir of its own (a StandInWorkdir
// with more in it).

/** The stand-in's workdir (exec/workdir.ts): every output there and fresh, nothing read or written. */
export class StandInWorkdir {
  async path() {
    return '/stand-in/workdir';
  }
  async outputFacts(task) {
    return { exists: true, fresh: true, digest: task.id };
  }
  async runCheck() {
    return { exitCode: 0, tail: '' };
  }
  async missing() {
    return [];
  }
  // The provenance records are made by the controller (in the pass); writing them is the workdir's.
  async writeFiles() {
    return [];
  }
  async readFile() {
    return undefined;
  }
  async gather() {}
  async setAside(dest) {
    return { outputs: 0, attempts: false, dest };
  }
  async shipCode() {}
  async removeCode() {
    return [];
  }
  // The campaign's generation, recorded here as a workdir records it: the first writer's stands.
  recorded = undefined;
  generation = {
    read: async () => this.recorded,
    record: async (generation) => (this.recorded ??= generation),
    replace: async (generation) => {
      this.recorded = generation;
    },
  };
}

export class StandInExecutor {
  workdir = new StandInWorkdir();
  async readLog() {
    return 'step 3 loss 1.0\n';
  }
  async logPath() {
    return undefined;
  }
  async close() {}
}
