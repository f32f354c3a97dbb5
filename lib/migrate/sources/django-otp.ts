import { phoneOf } from '../mapping';
import { base32Of, quoted, type SecondFactor } from '../mfa';

/**
 * django-otp's and django-two-factor-auth's devices in a dump (SPEC §20: `dumpdata auth.user
 * otp_totp two_factor otp_static`). A confirmed `otp_totp.totpdevice` is a TOTP device (its `key`
 * is hex: the secret is `base32(unhex(key))`, `period = step`, `skew = tolerance`; django-otp's
 * HMAC is SHA-1); a confirmed SMS `phonedevice` an SMS factor; a confirmed static device backup
 * codes. Unconfirmed devices are abandoned set-ups: ignored.
 */

type Obj = Record<string, unknown>;

const TOTP = 'otp_totp.totpdevice';
const HOTP = 'otp_hotp.hotpdevice';
/** django-two-factor-auth's phone device: `two_factor` before 1.15, its `phonenumber` plugin since. */
const PHONE = new Set(['two_factor.phonedevice', 'phonenumber.phonedevice']);
const STATIC = 'otp_static.staticdevice';
/** The static device's tokens: plaintext backup codes, never read. */
const STATIC_TOKEN = 'otp_static.statictoken';

/** The models of second factors this module reads (their records are no `ignoredRecords`). */
export const isDeviceModel = (model: string): boolean => model === TOTP || model === HOTP || PHONE.has(model) || model === STATIC || model === STATIC_TOKEN;

/**
 * How a device names its user: `pk:<id>`, or `username:<name>` with `--natural-foreign`
 * (`["noor"]`); undefined when it is neither.
 */
export function deviceUserKey(user: unknown): string | undefined {
  if (typeof user === 'number' || (typeof user === 'string' && user !== '')) return `pk:${user}`;
  if (Array.isArray(user) && user.length === 1 && typeof user[0] === 'string') return `username:${user[0]}`;
  return undefined;
}

const whole = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);

/** A confirmed device's second factor; undefined for a record that is none (unconfirmed, a token). */
export function djangoFactor(model: string, f: Obj): SecondFactor | undefined {
  if (f.confirmed !== true) return undefined;
  const name = typeof f.name === 'string' && f.name.trim() !== '' ? f.name : undefined;
  const named = (kind: string) => `the ${kind} device${name !== undefined ? ` ${quoted(name)}` : ''}`;
  if (model === TOTP) {
    const what = named('TOTP');
    const lost = (why: string): SecondFactor => ({ kind: 'lost', what, why, authenticator: true });
    const key = typeof f.key === 'string' ? f.key.trim() : '';
    const [digits, t0, step, tolerance] = [whole(f.digits ?? 6), whole(f.t0 ?? 0), whole(f.step ?? 30), whole(f.tolerance ?? 1)];
    if (key === '' || key.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(key)) return lost('its key is not hex');
    if (digits !== 6) return lost(`it makes ${String(f.digits).slice(0, 8)}-digit codes, and the service checks 6 digits only`);
    if (t0 !== 0) return lost('its t0 is not 0, and the service counts time steps from 0');
    if (step === undefined || step < 1) return lost('its step is not a positive whole number of seconds');
    if (tolerance === undefined || tolerance < 0) return lost('its tolerance is not a whole number ≥ 0');
    return { kind: 'totp', what, ...(name !== undefined ? { name } : {}), secret: base32Of(Buffer.from(key, 'hex')), period: step, skew: tolerance };
  }
  if (model === HOTP)
    return { kind: 'lost', what: named('HOTP'), why: 'it is counter-based, and the service checks time-based codes only', authenticator: true };
  if (PHONE.has(model)) {
    const what = named(f.method === 'call' ? 'phone (voice call)' : 'phone');
    if (f.method !== 'sms') return { kind: 'lost', what, why: 'only SMS phone devices are carried' };
    const phone = phoneOf(f.number);
    return phone !== undefined ? { kind: 'sms', what, phone } : { kind: 'lost', what, why: 'its number is not in international format' };
  }
  if (model === STATIC) return { kind: 'recovery', what: `the backup codes (${named('static')})` };
  return undefined;
}
