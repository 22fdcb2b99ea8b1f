/** Which software environment (the manifest's `environment`) a phase's tasks run in. */
import type { Environment, Manifest, Phase } from './schema.js';

/**
 * A phase's environment: each key the phase sets replaces the campaign's, and its conda or
 * venv replaces the campaign's conda and venv both (one Python environment is active at a
 * time). Undefined when nothing is to be activated, so that a manifest without an environment
 * renders and hashes as it did before there was one. An empty module list loads nothing.
 */
export function environmentFor(manifest: Manifest, phase: Phase): Environment | undefined {
  const top = manifest.environment ?? {};
  const own = phase.environment ?? {};
  const modules = own.modules ?? top.modules;
  const python = own.conda !== undefined || own.venv !== undefined ? own : top;
  // Keys in a fixed order: the definition digest hashes this object as JSON.
  const env: Environment = {
    ...(modules !== undefined && modules.length > 0 ? { modules } : {}),
    ...(python.conda !== undefined ? { conda: python.conda } : {}),
    ...(python.venv !== undefined ? { venv: python.venv } : {}),
  };
  return Object.keys(env).length > 0 ? env : undefined;
}
