# Writes one-column CSV files, one for each data set of R's datasets and
# MASS that bench/barrier's mixture screen reads (docs/experiments/tempering.md), into
# the directory given: Rscript bench/barrier/screen-data.R DIR
library(MASS)
dir <- commandArgs(trailingOnly = TRUE)[1]
dir.create(dir, showWarnings = FALSE)
w <- function(x, name) write.csv(setNames(data.frame(x), name), file.path(dir, paste0(name, ".csv")), row.names = FALSE, quote = FALSE)
ozone <- airquality$Ozone[!is.na(airquality$Ozone)]
w(precip, "precip"); w(log(rivers), "logrivers"); w(morley$Speed, "morley"); w(as.numeric(Nile), "nile")
w(chem, "chem"); w(abbey, "abbey"); w(iris$Petal.Length, "irisPL"); w(iris$Petal.Width, "irisPW"); w(iris$Sepal.Length, "irisSL")
w(crabs$FL, "crabsFL"); w(crabs$CW, "crabsCW"); w(crabs$RW, "crabsRW"); w(birthwt$bwt, "bwt"); w(cats$Hwt, "catsHwt"); w(cats$Bwt, "catsBwt")
w(Pima.tr$glu, "pimaglu"); w(Pima.tr$bmi, "pimabmi"); w(log(islands), "logislands"); w(Boston$medv, "medv"); w(log(Cars93$Price), "logprice")
w(as.numeric(log(lynx)), "loglynx"); w(as.numeric(sunspot.year), "sunspot"); w(mtcars$mpg, "mpg"); w(faithful$waiting, "fwait")
w(ToothGrowth$len, "tooth"); w(ozone, "ozone"); w(log(ozone), "logozone")
w(trees$Volume, "treesvol"); w(log(Animals$body), "loganimals"); w(hills$time, "hills"); w(log(mammals$brain), "logbrain")
w(state.x77[, "Income"], "income"); w(USArrests$UrbanPop, "urbanpop"); w(USArrests$Murder, "murder"); w(swiss$Catholic, "catholic")
