PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE __miniflare_do_name (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO __miniflare_do_name VALUES(1,'d0a2472b80e86794');
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES('showing','{"showing_id":"d0a2472b80e86794","price":{"amount":1200,"currency":"USD"},"config":{"max_seats_per_hold":4,"hold_ttl_ms":1800000,"payment_cap_ms":3600000,"max_live_holds":5000,"max_released_per_sweep":1000,"max_closed_orders":10000}}');
INSERT INTO meta VALUES('version','12');
INSERT INTO meta VALUES('latest_now_ms','1796070079550');
CREATE TABLE units (
  idx INTEGER PRIMARY KEY, name TEXT NOT NULL, state TEXT NOT NULL, owner TEXT);
INSERT INTO units VALUES(0,'A1','sold','d0a2472b80e867944c4e3c90bdca5d2ad700570e');
INSERT INTO units VALUES(1,'A2','sold','d0a2472b80e867944c4e3c90bdca5d2ad700570e');
INSERT INTO units VALUES(2,'A3','available',NULL);
INSERT INTO units VALUES(3,'A4','available',NULL);
INSERT INTO units VALUES(4,'A5','pending','d0a2472b80e8679438bccd77ff324112dd394d94');
INSERT INTO units VALUES(5,'A6','pending','d0a2472b80e8679438bccd77ff324112dd394d94');
INSERT INTO units VALUES(6,'A7','available',NULL);
INSERT INTO units VALUES(7,'A8','available',NULL);
INSERT INTO units VALUES(8,'B1','held','13986a620e9c10726c4fe1b643af34db');
INSERT INTO units VALUES(9,'B2','available',NULL);
INSERT INTO units VALUES(10,'B3','available',NULL);
INSERT INTO units VALUES(11,'B4','available',NULL);
INSERT INTO units VALUES(12,'B5','available',NULL);
INSERT INTO units VALUES(13,'B6','available',NULL);
INSERT INTO units VALUES(14,'B7','held','875960a85d3c9afd09ebcfc7c15ffabb');
INSERT INTO units VALUES(15,'B8','held','875960a85d3c9afd09ebcfc7c15ffabb');
CREATE TABLE holds (id TEXT PRIMARY KEY, record TEXT NOT NULL);
INSERT INTO holds VALUES('13986a620e9c10726c4fe1b643af34db','{"id":"13986a620e9c10726c4fe1b643af34db","seats":[8],"started_at_ms":1796070079246,"expires_at_ms":1796073679246,"paying":true}');
INSERT INTO holds VALUES('875960a85d3c9afd09ebcfc7c15ffabb','{"id":"875960a85d3c9afd09ebcfc7c15ffabb","seats":[14,15],"started_at_ms":1796070079444,"expires_at_ms":1796071879444,"paying":false}');
CREATE TABLE orders (id TEXT PRIMARY KEY, record TEXT NOT NULL);
INSERT INTO orders VALUES('d0a2472b80e867944c4e3c90bdca5d2ad700570e','{"id":"d0a2472b80e867944c4e3c90bdca5d2ad700570e","hold_id":"13cab2296d2a1336c4bcf7449b70bab2","seats":[0,1],"voided":[],"state":"Confirmed","closed_at_version":null}');
INSERT INTO orders VALUES('d0a2472b80e8679438bccd77ff324112dd394d94','{"id":"d0a2472b80e8679438bccd77ff324112dd394d94","hold_id":"a9017b79b434ce0a26ce9999aff74924","seats":[4,5],"voided":[],"state":"Pending","closed_at_version":null}');
CREATE TABLE hold_owners (
  hold_id TEXT PRIMARY KEY, buyer TEXT NOT NULL, seats TEXT NOT NULL,
  ended TEXT, ended_at_ms INTEGER);
INSERT INTO hold_owners VALUES('13cab2296d2a1336c4bcf7449b70bab2','88fdec0285aed7090ac05e30f9407010','["A1","A2"]','committed',1796070079093);
INSERT INTO hold_owners VALUES('13986a620e9c10726c4fe1b643af34db','c193dac57d23ae9b6435cd53d1f520aa','["B1"]',NULL,NULL);
INSERT INTO hold_owners VALUES('eac02737541f1e0c699514e2944e0d90','887a236dcc07e93933d5d78632317eaf','["B5"]','released',1796070079415);
INSERT INTO hold_owners VALUES('875960a85d3c9afd09ebcfc7c15ffabb','3c6331eb2f532a92f30277f99a313d1b','["B7","B8"]',NULL,NULL);
INSERT INTO hold_owners VALUES('a9017b79b434ce0a26ce9999aff74924','955faed146bce5aa1f9a74c83d9a9e5d','["A5","A6"]','committed',1796070079550);
CREATE TABLE idempotency (
  key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status INTEGER NOT NULL,
  body TEXT NOT NULL, buyer TEXT NOT NULL, created_at_ms INTEGER NOT NULL);
INSERT INTO idempotency VALUES('freeze-key-1','4c82838b67681e7111b80ed7d100f19811276ec80e00271dc2f9ea60920fdc2a',201,'{"hold_id":"a2118d04f638c08211fdc3f66963ea06","seats":["B7","B8"],"expires_at_ms":1796071879444,"amount":{"amount":2400,"currency":"USD"}}','3c6331eb2f532a92f30277f99a313d1b',1796070079444);
CREATE TABLE checkouts (
  order_id TEXT PRIMARY KEY, auth_key TEXT NOT NULL UNIQUE, record TEXT NOT NULL,
  due_at_ms INTEGER);
INSERT INTO checkouts VALUES('d0a2472b80e867944c4e3c90bdca5d2ad700570e','auth-be6895e2ac270697c6401a33fbb7469b3fac785f','{"config":{"max_authorization_attempts":5,"retry_base_ms":60000,"retry_max_ms":60000,"answer_timeout_ms":30000},"order":{"order_id":"d0a2472b80e867944c4e3c90bdca5d2ad700570e","hold_id":"13cab2296d2a1336c4bcf7449b70bab2","seats":["A1","A2"],"amount_minor":2400,"currency":"USD","buyer_email":"ana@example.com","buyer_name":"Ana Lima"},"source_id":null,"authorization_key":"auth-be6895e2ac270697c6401a33fbb7469b3fac785f","payment":{"id":"TJo5MH4SHhWpux409Yq3V0n6wVhtJ","status":"COMPLETED"},"authorization":"Approved","seats":"Sold","tickets":"Paid","refund":"NotStarted","outcome":{"outcome":"paid"},"final_recorded":true,"in_flight":null,"steps_started":6,"latest_now_ms":1796070079212}',NULL);
INSERT INTO checkouts VALUES('d0a2472b80e86794d0cff7ce7813252fc417aa60','auth-f2056b6a87f827b0dc1b6767e6fe10ad07273bfb','{"config":{"max_authorization_attempts":5,"retry_base_ms":60000,"retry_max_ms":60000,"answer_timeout_ms":30000},"order":{"order_id":"d0a2472b80e86794d0cff7ce7813252fc417aa60","hold_id":"13986a620e9c10726c4fe1b643af34db","seats":["B1"],"amount_minor":1200,"currency":"USD","buyer_email":"ana@example.com","buyer_name":"Ana Lima"},"source_id":null,"authorization_key":"auth-f2056b6a87f827b0dc1b6767e6fe10ad07273bfb","payment":{"id":"tmmWvKSelZRsLHJm07CSS7mgijYpr","status":"FAILED"},"authorization":{"Declined":{"code":"GENERIC_DECLINE"}},"seats":"Held","tickets":"NotWritten","refund":"NotStarted","outcome":{"outcome":"declined","code":"GENERIC_DECLINE"},"final_recorded":true,"in_flight":null,"steps_started":2,"latest_now_ms":1796070079316}',NULL);
INSERT INTO checkouts VALUES('d0a2472b80e8679438bccd77ff324112dd394d94','auth-0785b1d809b347bb57cd09740ed2f362aed0f298','{"config":{"max_authorization_attempts":5,"retry_base_ms":60000,"retry_max_ms":60000,"answer_timeout_ms":30000},"order":{"order_id":"d0a2472b80e8679438bccd77ff324112dd394d94","hold_id":"a9017b79b434ce0a26ce9999aff74924","seats":["A5","A6"],"amount_minor":2400,"currency":"USD","buyer_email":"ana@example.com","buyer_name":"Ana Lima"},"source_id":null,"authorization_key":"auth-0785b1d809b347bb57cd09740ed2f362aed0f298","payment":{"id":"hJ7H9rA32zckdHo4NU7HWcDlCBCQQ","status":"APPROVED"},"authorization":"Approved","seats":"Committed","tickets":"Written","refund":"NotStarted","outcome":null,"final_recorded":false,"in_flight":{"tag":3,"step":"capture","sent":1,"waiting":{"Retry":{"next_attempt_at_ms":1796070139609}}},"steps_started":4,"latest_now_ms":1796070079609}',1796070139609);
CREATE TABLE _cf_METADATA (
        key INTEGER PRIMARY KEY,
        value BLOB
      );
INSERT INTO _cf_METADATA VALUES(1,1796070109028000000);
CREATE INDEX hold_owners_live ON hold_owners (buyer) WHERE ended IS NULL;
CREATE INDEX idempotency_by_age ON idempotency (created_at_ms);
CREATE INDEX checkouts_due ON checkouts (due_at_ms) WHERE due_at_ms IS NOT NULL;
COMMIT;
