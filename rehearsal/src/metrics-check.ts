/**
 * `GET /metrics` read as Prometheus would, and the series an operator alerts on checked for what
 * the rehearsal made happen.
 */

/** One sample: the series' name, its labels, its value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export async function scrape(apiUrl: string): Promise<Sample[]> {
  const response = await fetch(`${apiUrl}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  const samples: Sample[] = [];
  for (const line of (await response.text()).split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = line.match(/^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/);
    if (!match) throw new Error(`/metrics: not a sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key as string] = value as string;
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include `labels`. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return matching.length === 0 ? undefined : matching.reduce((sum, sample) => sum + sample.value, 0);
}

/** Each `[series, labels, test]` holds on `samples`; the values, for the report. */
export function expectSeries(
  samples: Sample[],
  expectations: Array<[name: string, labels: Record<string, string>, test: (value: number) => boolean, wanted: string]>,
): Array<{ series: string; value: number | string; wanted: string }> {
  const rows: Array<{ series: string; value: number | string; wanted: string }> = [];
  const problems: string[] = [];
  for (const [name, labels, test, wanted] of expectations) {
    const value = sampleValue(samples, name, labels);
    const labelText = Object.entries(labels)
      .map(([key, v]) => `${key}="${v}"`)
      .join(",");
    const series = labelText ? `${name}{${labelText}}` : name;
    rows.push({ series, value: value ?? "absent", wanted });
    if (value === undefined || !test(value)) problems.push(`${series} is ${value ?? "absent"}, wanted ${wanted}`);
  }
  if (problems.length > 0) throw new Error(`/metrics:\n  ${problems.join("\n  ")}`);
  return rows;
}

export const positive = (value: number) => value > 0;
