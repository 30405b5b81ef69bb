import { describe, expect, it } from "vitest";
import { readSettings } from "./settings.ts";
import { StartError } from "./supervisor.ts";

describe("readSettings", () => {
  it("runs one API process unless API_PROCESSES asks for more, up to 64", () => {
    expect(readSettings({}).apiProcesses).toBe(1);
    expect(readSettings({ API_PROCESSES: "" }).apiProcesses).toBe(1);
    expect(readSettings({ API_PROCESSES: "2" }).apiProcesses).toBe(2);
    expect(readSettings({ API_PROCESSES: "64" }).apiProcesses).toBe(64);
  });

  it("refuses an API_PROCESSES that is not a whole number from 1 to 64, in one line naming it", () => {
    for (const value of ["0", "65", "1.5", "-1", "two", "0x10", "1e1"]) {
      const read = () => readSettings({ API_PROCESSES: value });
      expect(read, value).toThrow(StartError);
      expect(read, value).toThrow(`API_PROCESSES=${value} is not a whole number from 1 to 64`);
    }
  });
});
