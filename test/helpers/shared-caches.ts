import { readConfig } from '../../src/config.js';

/**
 * The caches every test service shares: the default var/'s folders (their files are named by, or
 * keyed by, their content). Each test's own var/ would make them again: seconds of CPU for every
 * test that starts a service (the slim geolocation copy, the platforms' YAML parsed).
 */
const defaults = readConfig({});
export const SHARED_GEOIP_CACHE = defaults.geoipCacheDir;
export const SHARED_PLATFORMS_CACHE = defaults.platformsCacheDir;
