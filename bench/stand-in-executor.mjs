// What the benches' stand-in executors share: a cluster on which every output is there and
// fresh, every check passes and nothing else is read or written. Each bench's executor extends
// it with its own submit and observe.
export class StandInExecutor {
  async readLog() {
    return 'step 3 loss 1.0\n';
  }
  async logPath() {
    return undefined;
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
  // The provenance records are made by the controller (in the pass); writing them is the executor's.
  async writeFiles() {
    return [];
  }
  async readFile() {
    return undefined;
  }
  async setAside(dest) {
    return { outputs: 0, attempts: false, dest };
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
  async close() {}
}
