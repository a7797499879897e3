// Used only when the service runs from its TypeScript sources (tests, `npm run dev`): registers
// tsx in this worker before loading the worker module. Passing `--import tsx` to worker threads
// instead races when several workers start at once.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
const mod = await import(workerData.sourceModule);
export default mod.default;
