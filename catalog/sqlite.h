// A thin RAII adapter over the SQLite C API: one connection, prepared statements, transactions.
// SQLite's error codes become Status values here; nothing else in the tree includes sqlite3.h.
#ifndef EPOCHCOST_CATALOG_SQLITE_H_
#define EPOCHCOST_CATALOG_SQLITE_H_

#include <memory>
#include <string>

#include "engine/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace epochcost::catalog {

class Statement {
 public:
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }
  ~Statement();

  Statement& Bind(int i, const std::string& v);
  Statement& Bind(int i, double v);
  Statement& Bind(int i, int64_t v);
  Statement& BindNull(int i);
  // Steps once: true while a row is available, false when done; errors are Status.
  Result<bool> Step();
  Status Run();  // steps to completion, then resets for reuse
  void Reset();
  std::string Text(int col) const;
  double Double(int col) const;
  int64_t Int(int col) const;
  bool IsNull(int col) const;

 private:
  friend class Database;
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class Database {
 public:
  // Opens (creating if needed) with WAL journaling and a busy timeout, so concurrent writers wait.
  // `what` names the database in errors: "catalog", "profile store".
  static Result<std::unique_ptr<Database>> Open(const std::string& path, const std::string& what);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  Status Exec(const std::string& sql);
  Result<Statement> Prepare(const std::string& sql);
  const std::string& path() const { return path_; }

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless Commit() succeeded.
class Transaction {
 public:
  static Result<std::unique_ptr<Transaction>> Begin(Database& db);
  Status Commit();
  ~Transaction();

 private:
  explicit Transaction(Database& db) : db_(db) {}
  Database& db_;
  bool done_ = false;
};

}  // namespace epochcost::catalog

#endif  // EPOCHCOST_CATALOG_SQLITE_H_
