// Headless Chromium for the browser tests and the page benchmark: Debian's /usr/bin/chromium
// through playwright-core (Playwright cannot download browsers here), with the flags that
// /work/shared/TOOLCHAIN.md found necessary on a closed network.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.ATTNLAB_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// WebGPU on a machine without a GPU: Chromium's SwiftShader adapter (a CPU implementation).
export const WEBGPU_ARGS = ['--enable-unsafe-webgpu', '--enable-unsafe-swiftshader'];

/** Launches Chromium; throws (never skips) with the reason when it cannot start. */
export async function launchChromium({ extraArgs = [] } = {}) {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium could not start: ${CHROMIUM_PATH} does not exist (scripts/setup.sh installs it)`);
  }
  try {
    return await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, ...extraArgs], headless: true, timeout: 60_000 });
  } catch (error) {
    throw new Error(`Chromium could not start (${CHROMIUM_PATH}): ${error.message}`, { cause: error });
  }
}
