import 'server-only';
import { headers } from 'next/headers';
import { checkRequest, type GateVerdict } from './gate-rules';
import { serverConfig } from './config';

/** Runs the gate's rules on the current request (inside actions and route handlers). */
export async function checkCurrentRequest(method: string): Promise<GateVerdict> {
  const h = await headers();
  return checkRequest({ method, host: h.get('host'), origin: h.get('origin'), cookie: h.get('cookie') }, serverConfig().gate);
}
