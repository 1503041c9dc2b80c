#include "catalog/sqlite.h"

#include <sqlite3.h>

#include <chrono>
#include <thread>

namespace epochcost::catalog {
namespace {

// How long a connection waits for another process's lock before giving up.
constexpr std::chrono::milliseconds kBusyTimeout(30000);

Status Error(sqlite3* db, const std::string& what) {
  return Status::IoError(what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

}  // namespace

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Statement& Statement::Bind(int i, const std::string& v) {
  sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Statement& Statement::Bind(int i, double v) {
  sqlite3_bind_double(stmt_, i, v);
  return *this;
}
Statement& Statement::Bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}
Statement& Statement::BindNull(int i) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}

Result<bool> Statement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Error(db_, "catalog query failed");
}

Status Statement::Run() {
  Result<bool> r = Step();
  while (r.ok() && *r) r = Step();
  Reset();
  return r.ok() ? Status::Ok() : r.status();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Statement::Text(int col) const {
  const unsigned char* t = sqlite3_column_text(stmt_, col);
  return t ? reinterpret_cast<const char*>(t) : "";
}
double Statement::Double(int col) const { return sqlite3_column_double(stmt_, col); }
int64_t Statement::Int(int col) const { return sqlite3_column_int64(stmt_, col); }
bool Statement::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

Result<std::unique_ptr<Database>> Database::Open(const std::string& path, const std::string& what) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    Status s = Error(db, path + ": cannot open " + what);
    sqlite3_close(db);
    return s;
  }
  sqlite3_busy_timeout(db, static_cast<int>(kBusyTimeout.count()));
  std::unique_ptr<Database> d(new Database(db, path));
  // Switching a new catalog to WAL needs it to itself; while another process is creating the
  // same file, SQLite answers SQLITE_BUSY at once instead of calling the busy handler (found by
  // DurabilityTest.TwoImportersAndReadersAtOnce, about 1 run in 7). So retry it, within the
  // same 30 s the busy handler allows.
  const auto deadline = std::chrono::steady_clock::now() + kBusyTimeout;
  for (;;) {
    const int rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) break;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline)
      return Error(db, path + ": cannot open " + what);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EPOCHCOST_RETURN_IF_ERROR(d->Exec("PRAGMA foreign_keys=ON;"));
  return d;
}

Database::~Database() { sqlite3_close(db_); }

Status Database::Exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string m = message ? message : "unknown error";
    sqlite3_free(message);
    return Status::IoError(path_ + ": " + m);
  }
  return Status::Ok();
}

Result<Statement> Database::Prepare(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
    return Error(db_, path_ + ": cannot prepare query");
  return Statement(db_, stmt);
}

Result<std::unique_ptr<Transaction>> Transaction::Begin(Database& db) {
  EPOCHCOST_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  return std::unique_ptr<Transaction>(new Transaction(db));
}

Status Transaction::Commit() {
  Status s = db_.Exec("COMMIT");
  done_ = s.ok();
  return s;
}

Transaction::~Transaction() {
  if (!done_) (void)db_.Exec("ROLLBACK");
}

}  // namespace epochcost::catalog
