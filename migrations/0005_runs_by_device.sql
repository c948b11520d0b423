-- A browser has at most one ladder run going per variant: "Climb the
-- ladder" leads back to it. This finds it by the browser's device.

CREATE INDEX ladder_runs_by_device ON ladder_runs (device_hash, variant, status);
