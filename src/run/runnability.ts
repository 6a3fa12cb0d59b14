// Whether a valid recipe can run on this host, and if not, why — in words a
// person can act on. A recipe can be valid (it describes Reef's seven-GPU
// layout correctly) and still not runnable here. The composition root
// (src/run/composeRun.ts) decides: the device map against the
// host's GPUs, and each backend the recipe names.
import { detectHostGpus, type HostGpus } from '../processes/devices/hostGpus';

export { reasonsNotRunnable } from './composeRun';

export type HostFacts = HostGpus;

/** The host's GPUs (`nvidia-smi --query-gpu=…`, argument array, no shell); none when absent. */
export function probeHost(): HostFacts {
  return detectHostGpus();
}
