// A number input that never fights the person typing: it is not re-rendered from its value while it has
// the focus (a half-typed "0." stays as typed), and follows its value otherwise (a slider beside it, a
// preset loaded into the form).
import { useLayoutEffect, useRef } from "preact/hooks";
import type { JSX } from "preact";

type Props = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, "value" | "onInput" | "type"> & {
  value: number | null;
  /** The typed number, or null while the field is empty or not a number. */
  onValue: (n: number | null) => void;
};

export function NumberInput({ value, onValue, ...rest }: Props) {
  const ref = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    const el = ref.current!;
    if (document.activeElement === el) return;
    const shown = el.value === "" ? null : el.valueAsNumber;
    if (shown !== value) el.value = value === null ? "" : String(value);
  }, [value]);
  return (
    <input
      ref={ref}
      type="number"
      {...rest}
      onInput={(e) => {
        const n = e.currentTarget.valueAsNumber;
        onValue(Number.isFinite(n) ? n : null);
      }}
    />
  );
}
