from enum import StrEnum


class LimitsMode(StrEnum):
    CGROUP = "cgroup"
    RLIMIT = "rlimit"
    VENDOR = "vendor"

    def __str__(self) -> str:
        return str(self.value)
