// Views of catalog query results: tables, JSON and CSV. They format; they compute nothing.
#ifndef EPOCHCOST_CLI_CATALOG_VIEWS_H_
#define EPOCHCOST_CLI_CATALOG_VIEWS_H_

#include <string>
#include <vector>

#include "catalog/store.h"

namespace epochcost::cli {

std::string OffersTable(const std::vector<catalog::Offer>& offers);
std::string OffersJson(const std::vector<catalog::Offer>& offers);
std::string OffersCsv(const std::vector<catalog::Offer>& offers);
std::string HistoryTable(const std::vector<catalog::PriceObservation>& history);
std::string PricesCsv(const std::vector<catalog::PriceObservation>& prices);
std::string InstanceText(const catalog::InstanceType& instance);
std::string InterruptionText(const std::string& where, const catalog::Interruption& i);
std::string StatsTable(const catalog::CatalogStats& stats);
std::string SummaryText(const catalog::ImportSummary& summary, bool dry_run);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_CATALOG_VIEWS_H_
