-- "Mail me when my jobs end", set by the account itself (POST /api/admin/profile, section
-- notifications) and shown in its record, as the reference's clients expect. The service sends
-- no mail: the flag is kept for them.
ALTER TABLE users ADD COLUMN notifiate INTEGER NOT NULL DEFAULT 0 CHECK (notifiate IN (0, 1));
