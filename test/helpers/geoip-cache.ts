import { readConfig } from '../../src/config.js';

/**
 * The slim geolocation copy's folder for every test service: the one the service uses with its
 * default var/ (copies are named by their content). Each test's own var/ would make the copy
 * again, seconds of CPU for every test file that starts a service.
 */
export const SHARED_GEOIP_CACHE = readConfig({}).geoipCacheDir;
