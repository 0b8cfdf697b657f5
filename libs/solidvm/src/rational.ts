// Solidity's rational constants: literal expressions are computed exactly
// (`15e-1 * 2` is 3), with number literals in every form (hex, scientific,
// with a unit such as `ether`).

/** An exact rational number n/d: d > 0, in lowest terms (Solidity's rational constants). */
export interface Rat {
  n: bigint;
  d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function rat(n: bigint, d: bigint): Rat {
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

/** A bound on the size of constants (solc's is 4096 bits), so that `10 ** 10 ** 10` fails at compile time. */
const MAX_BITS = 4096;

function tooLarge(r: Rat): boolean {
  return (r.n < 0n ? -r.n : r.n).toString(16).length * 4 > MAX_BITS + 4 || r.d.toString(16).length * 4 > MAX_BITS + 4;
}

/**
 * Exact arithmetic and comparisons on rational constants: a rational, a
 * bool, or undefined when the expression has no constant value (division by
 * zero, a fractional or huge exponent, bit operators on a fraction).
 */
export function ratOp(op: string, a: Rat, b: Rat): Rat | boolean | undefined {
  let r: Rat;
  switch (op) {
    case '+':
      r = rat(a.n * b.d + b.n * a.d, a.d * b.d);
      break;
    case '-':
      r = rat(a.n * b.d - b.n * a.d, a.d * b.d);
      break;
    case '*':
      r = rat(a.n * b.n, a.d * b.d);
      break;
    case '/':
      if (b.n === 0n) return undefined;
      r = rat(a.n * b.d, a.d * b.n);
      break;
    case '%': {
      if (b.n === 0n) return undefined;
      // a - b * trunc(a / b): the sign of the dividend, as for integers
      const q = (a.n * b.d) / (a.d * b.n);
      r = rat(a.n * b.d - q * b.n * a.d, a.d * b.d);
      break;
    }
    case '**': {
      if (b.d !== 1n || b.n > 4096n || b.n < -4096n) return undefined;
      if (b.n < 0n && a.n === 0n) return undefined;
      const e = b.n < 0n ? -b.n : b.n;
      const n = a.n ** e;
      const d = a.d ** e;
      r = b.n < 0n ? rat(d, n) : { n, d };
      break;
    }
    case '<':
      return a.n * b.d < b.n * a.d;
    case '>':
      return a.n * b.d > b.n * a.d;
    case '<=':
      return a.n * b.d <= b.n * a.d;
    case '>=':
      return a.n * b.d >= b.n * a.d;
    case '==':
      return a.n === b.n && a.d === b.d;
    case '!=':
      return a.n !== b.n || a.d !== b.d;
    default:
      return undefined;
  }
  return tooLarge(r) ? undefined : r;
}

const UNITS: Record<string, bigint> = {
  wei: 1n,
  gwei: 10n ** 9n,
  szabo: 10n ** 12n,
  finney: 10n ** 15n,
  ether: 10n ** 18n,
  seconds: 1n,
  minutes: 60n,
  hours: 3600n,
  days: 86400n,
  weeks: 604800n,
  years: 31536000n,
};

/** A number literal's exact value: decimal, hex or scientific (`15e-1`, `2.5e3`), times its unit. */
export function parseNumberRational(text: string, unitName: string | null): Rat {
  const t = text.replace(/_/g, '');
  const mult = unitName ? UNITS[unitName] : 1n;
  if (mult === undefined) throw new Error(`unknown unit ${unitName}`);
  if (/^0x/i.test(t)) return { n: BigInt(t) * mult, d: 1n };
  const m = /^(\d*)(?:\.(\d*))?(?:[eE](-?\d+))?$/.exec(t);
  if (!m) throw new Error(`bad number ${text}`);
  const intPart = m[1] || '0';
  const frac = m[2] ?? '';
  const exp = Number(m[3] ?? '0');
  // value = (intPart.frac) * 10^exp * mult, as num / 10^den
  const den = frac.length - exp;
  if (Math.abs(den) > 4096) throw new Error(`number ${text} is too large`);
  const num = BigInt(intPart + frac) * mult;
  return den <= 0 ? { n: num * 10n ** BigInt(-den), d: 1n } : rat(num, 10n ** BigInt(den));
}

/** A rational's value in SolidVM's decimal: 18 fractional digits, truncated toward zero. */
export function ratToDecimal(r: Rat): bigint {
  return (r.n * 10n ** 18n) / r.d;
}

/**
 * A number literal: a bigint when it is an integer (hex, `1e18`, `2.5 ether`,
 * `15e-1 * 2` once folded), otherwise { decimal } scaled by 10^18 (SolidVM's decimal type).
 */
export function parseNumberLiteral(text: string, unitName: string | null): bigint | { decimal: bigint } {
  const r = parseNumberRational(text, unitName);
  return r.d === 1n ? r.n : { decimal: ratToDecimal(r) };
}
