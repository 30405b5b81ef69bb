/**
 * A row of buttons of which one is chosen (aria-pressed), e.g. FIXED / BOUNTY or week / month,
 * grouped by their fieldset and legend.
 * Buttons rather than ARIA tabs: each choice reloads the same list below, it shows no other panel.
 */
export function ChoiceBar<T extends string>({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: readonly { value: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <fieldset className="choice-bar">
      <legend>{label}</legend>
      <div className="choice-buttons">
        {options.map((option) => (
          <button
            key={option.value}
            type="button"
            aria-pressed={option.value === value}
            className={option.value === value ? "" : "outline"}
            onClick={() => onChange(option.value)}
          >
            {option.label}
          </button>
        ))}
      </div>
    </fieldset>
  );
}
