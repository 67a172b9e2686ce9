cat "$T/pmu.log"; grep -E "^@@|^not ok|^1\.\." "$T/unit.log"
