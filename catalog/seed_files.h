// The files of data/catalog compiled into epochcost (scripts/embed_files.cmake), by file stem.
#ifndef EPOCHCOST_CATALOG_SEED_FILES_H_
#define EPOCHCOST_CATALOG_SEED_FILES_H_

#include <string_view>

namespace epochcost::catalog {

// The text of data/catalog/STEM.csv (or data/catalog/skypilot/STEM.csv); empty if absent.
std::string_view SeedFile(std::string_view stem);

}  // namespace epochcost::catalog

#endif  // EPOCHCOST_CATALOG_SEED_FILES_H_
