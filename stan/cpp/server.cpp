// The model process of a Stan model: fresgld's model protocol (version 1,
// docs/model-protocol.md) over the model's log density on the
// unconstrained scale, with the Jacobian, as CmdStan samples it. Package
// stan compiles this file with the C++ that stanc makes of a model, which
// it includes as FRESGLD_STAN_MODEL, and runs it as
//
//   model serve DATA           the protocol on stdin/stdout
//   model info DATA            the names (unconstrained, then constrained)
//   model write DATA SEED      unconstrained draws in, Stan's draws out
//   model init DATA INIT       the unconstrained values of an init file
//   model time DATA N          ns a gradient, the mean of N at θ = 0.1
//
// DATA and INIT are R dump files (package stan writes them from JSON); an
// empty DATA is a model without data.
//
// The same object, linked as a shared library, is the in-process model:
// the extern "C" functions at the end, which package stan calls through
// dlopen, a gradient without a process's round trip.
//
// The density is one term: the protocol's prior U_0 = −log p(θ) and one
// example whose value is 0, so a full pass is one request. A state the
// model rejects is answered "reject <message>", which the sampler takes as
// a rejected proposal: any std::exception the log density throws (a
// reject(), a failed check, an ODE solver past its steps), as Stan's own
// samplers take it (base_hamiltonian's update_potential_gradient sets the
// potential to +∞), and a log density of −∞ or NaN or a gradient that is
// not finite. An exception of another kind is an error, which stops the
// run.
#include FRESGLD_STAN_MODEL

#include <chrono>
#include <mutex>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <stan/io/dump.hpp>
#include <stan/io/empty_var_context.hpp>
#include <stan/model/log_prob_grad.hpp>

namespace {

std::unique_ptr<stan::io::var_context> read_dump(const std::string& path) {
  if (path.empty()) return std::unique_ptr<stan::io::var_context>(new stan::io::empty_var_context());
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::unique_ptr<stan::io::var_context>(new stan::io::dump(in));
}

// one_line keeps a message on one line of the protocol.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

struct Server {
  stan_model& model;
  size_t p;
  bool binary = false;
  std::vector<double> theta, phi, grad, out;
  std::vector<int> ints;
  std::string line;

  Server(stan_model& m) : model(m), p(m.num_params_r()), theta(p), phi(p), grad(p) {}

  // eval sets U = −log p(θ) and its gradient; it returns "" or the reason
  // the state is rejected, and throws on an error.
  std::string eval(std::vector<double>& x, bool want_grad, double& u) {
    double lp;
    try {
      lp = stan::model::log_prob_grad<true, true>(model, x, ints, grad, nullptr);
    } catch (const std::exception& e) {
      stan::math::recover_memory();
      return one_line(e.what());
    }
    if (!std::isfinite(lp)) return lp != lp ? "the log density is NaN" : "the log density is -inf";
    if (want_grad)
      for (size_t j = 0; j < p; j++)
        if (!std::isfinite(grad[j])) return "the gradient of the log density is not finite";
    u = -lp;
    for (double& g : grad) g = -g;
    return "";
  }

  bool read_vec(std::istringstream& ts, std::vector<double>& v) {
    if (binary) return std::fread(v.data(), sizeof(double), v.size(), stdin) == v.size();
    for (double& x : v) {
      std::string tok;
      if (!(ts >> tok)) return false;
      x = std::strtod(tok.c_str(), nullptr);
    }
    return true;
  }

  void reply() {
    if (binary) {
      std::printf("ok %zu\n", out.size());
      std::fwrite(out.data(), sizeof(double), out.size(), stdout);
    } else {
      std::fputs("ok", stdout);
      for (double v : out) std::printf(" %.17g", v);
      std::fputc('\n', stdout);
    }
    std::fflush(stdout);
  }

  void say(const char* what, const std::string& msg) {
    std::printf("%s %s\n", what, msg.c_str());
    std::fflush(stdout);
  }

  bool getline_stdin() {
    line.clear();
    int c;
    while ((c = std::getc(stdin)) != EOF && c != '\n') line.push_back(static_cast<char>(c));
    return c != EOF || !line.empty();
  }

  int run() {
    std::vector<std::string> names;
    model.unconstrained_param_names(names, false, false);
    std::printf("fresgld-model 1 text,binary %zu 1", p);
    for (auto& n : names) std::printf(" %s", n.c_str());
    std::printf("\n");
    std::fflush(stdout);
    if (!getline_stdin()) return 0;
    binary = line.find("binary") != std::string::npos;
    while (getline_stdin()) {
      std::istringstream ts(line);
      std::string method;
      int g = 0, d = 0;
      std::string n;
      ts >> method >> g;
      bool terms = method == "terms";
      if (terms) ts >> d >> n;
      if (method != "prior" && !terms) {
        say("error", "unknown request " + method);
        continue;
      }
      if (!read_vec(ts, theta) || (d && !read_vec(ts, phi))) return 1;
      if (terms && n != "all") {
        long k = std::strtol(n.c_str(), nullptr, 10);
        for (long i = 0; i < k; i++) {
          int32_t idx;
          if (binary) {
            if (std::fread(&idx, 4, 1, stdin) != 1) return 1;
          } else {
            std::string tok;
            ts >> tok;
          }
        }
      }
      double u = 0;
      std::string why;
      try {
        why = eval(theta, g != 0, u);
      } catch (...) {
        say("error", "the model threw an exception that is not a std::exception");
        continue;
      }
      if (!why.empty()) {
        say("reject", why);
        continue;
      }
      out.assign(1, u);
      if (g) out.insert(out.end(), grad.begin(), grad.end());
      if (terms) out.resize(out.size() + (g ? 3 + 3 * p : 3), 0.0);
      reply();
    }
    return 0;
  }
};

void print_names(const char* what, const std::vector<std::string>& names) {
  std::printf("%s %zu", what, names.size());
  for (auto& n : names) std::printf(" %s", n.c_str());
  std::printf("\n");
}

int info(stan_model& model) {
  std::vector<std::string> unc, par, tp, all;
  model.unconstrained_param_names(unc, false, false);
  model.constrained_param_names(par, false, false);
  model.constrained_param_names(tp, true, false);
  model.constrained_param_names(all, true, true);
  std::printf("model %s\n", model.model_name().c_str());
  print_names("unconstrained", unc);
  print_names("constrained", all);
  std::printf("parameters %zu\ntransformed %zu\n", par.size(), tp.size() - par.size());
  return 0;
}

// draw_rng is the random numbers of a draw's generated quantities, seeded
// by the run's seed and the draw's bits.
boost::ecuyer1988 draw_rng(uint64_t seed, const std::vector<double>& x) {
  uint64_t h = seed * 0x9E3779B97F4A7C15ull;
  for (double v : x) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    h = (h ^ b) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return stan::services::util::create_rng(static_cast<unsigned int>(h), static_cast<unsigned int>(h >> 32));
}

// write reads unconstrained draws, p float64 each, and writes Stan's
// values for each: the constrained parameters, transformed parameters and
// generated quantities, m float64. The generated quantities' random
// numbers are seeded by the run's seed and the draw's bits, so that a draw
// gets the same values whenever it is written (a resumed run's too). A
// draw whose generated quantities throw gets NaN for those not yet written,
// and the message on stderr.
int write(stan_model& model, unsigned long seed) {
  size_t p = model.num_params_r();
  std::vector<double> x(p), vars;
  std::vector<int> ints;
  std::vector<std::string> all;
  model.constrained_param_names(all, true, true);
  while (std::fread(x.data(), sizeof(double), p, stdin) == p) {
    boost::ecuyer1988 rng = draw_rng(seed, x);
    vars.clear();
    try {
      model.write_array(rng, x, ints, vars, true, true, nullptr);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "generated quantities: %s\n", one_line(e.what()).c_str());
    }
    vars.resize(all.size(), std::numeric_limits<double>::quiet_NaN());
    std::fwrite(vars.data(), sizeof(double), vars.size(), stdout);
    std::fflush(stdout);
  }
  return 0;
}

int init(stan_model& model, const std::string& path) {
  auto ctx = read_dump(path);
  std::vector<int> ints;
  std::vector<double> x;
  model.transform_inits(*ctx, ints, x, nullptr);
  for (size_t j = 0; j < x.size(); j++) std::printf("%s%.17g", j ? " " : "", x[j]);
  std::printf("\n");
  return 0;
}

// time is the model's own cost: the mean wall time of n gradients at
// θ = 0.1 in every coordinate, in ns, beside which a request's is read.
int time_grad(stan_model& model, long n) {
  std::vector<double> x(model.num_params_r(), 0.1), g;
  std::vector<int> ints;
  double sink = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n; i++) sink += stan::model::log_prob_grad<true, true>(model, x, ints, g, nullptr);
  auto t1 = std::chrono::steady_clock::now();
  std::printf("%.1f\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / n + 0 * sink);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s serve|info|write|init DATA [SEED|INIT]\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  try {
    auto data = read_dump(argv[2]);
    std::stringstream msg;
    stan_model model(*data, 0, &msg);
    if (!msg.str().empty()) std::fputs(msg.str().c_str(), stderr);
    if (mode == "serve") return Server(model).run();
    if (mode == "info") return info(model);
    if (mode == "write" && argc > 3) return write(model, std::strtoul(argv[3], nullptr, 10));
    if (mode == "init" && argc > 3) return init(model, argv[3]);
    if (mode == "time" && argc > 3) return time_grad(model, std::strtol(argv[3], nullptr, 10));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}

// The in-process model: a C interface, which throws nothing. A model is
// made from its data once; its log density and write_array are const, and
// each thread that calls them gets an autodiff tape of its own (rstan's
// Stan Math keeps the tape thread-local, and a tape exists on a thread
// only once a ChainableStack was made there).
namespace {
std::mutex msg_mu;
std::string last_msg;

void set_msg(const std::string& m) {
  std::lock_guard<std::mutex> lock(msg_mu);
  last_msg = one_line(m);
}

void ensure_tape() { static thread_local stan::math::ChainableStack tape; (void)tape; }
}  // namespace

extern "C" {

// fresgld_new makes the model of the data in data_path ("" for none), or
// returns NULL with the reason in fresgld_message.
void* fresgld_new(const char* data_path) {
  try {
    ensure_tape();
    auto data = read_dump(data_path);
    std::stringstream msg;
    auto* m = new stan_model(*data, 0, &msg);
    return m;
  } catch (const std::exception& e) {
    set_msg(e.what());
    return nullptr;
  }
}

void fresgld_free(void* m) { delete static_cast<stan_model*>(m); }

int fresgld_dim(void* m) { return static_cast<int>(static_cast<stan_model*>(m)->num_params_r()); }

// fresgld_lp_grad returns log p(θ) on the unconstrained scale with the
// Jacobian (propto, as lp__) and writes its gradient into grad (which may
// be NULL). A state the model rejects (a std::exception, a log density of
// −∞ or NaN, a gradient that is not finite: see the top of this file)
// returns −∞; any other failure NaN; the message of either is left for
// fresgld_message.
double fresgld_lp_grad(void* mp, const double* theta, double* grad) {
  auto& model = *static_cast<stan_model*>(mp);
  size_t p = model.num_params_r();
  thread_local std::vector<double> x, g;
  thread_local std::vector<int> ints;
  try {
    ensure_tape();
    x.assign(theta, theta + p);
    double lp;
    try {
      lp = stan::model::log_prob_grad<true, true>(model, x, ints, g, nullptr);
    } catch (const std::exception& e) {
      stan::math::recover_memory();
      set_msg(e.what());
      return -std::numeric_limits<double>::infinity();
    }
    if (!std::isfinite(lp)) {
      set_msg(lp != lp ? "the log density is NaN" : "the log density is -inf");
      return -std::numeric_limits<double>::infinity();
    }
    for (size_t j = 0; j < p; j++)
      if (!std::isfinite(g[j])) {
        set_msg("the gradient of the log density is not finite");
        return -std::numeric_limits<double>::infinity();
      }
    if (grad) std::copy(g.begin(), g.end(), grad);
    return lp;
  } catch (...) {
    stan::math::recover_memory();
    set_msg("the model threw an exception that is not a std::exception");
    return std::numeric_limits<double>::quiet_NaN();
  }
}

// fresgld_write writes Stan's values of the draw theta into out (room for
// every constrained name), seeding the generated quantities' random numbers
// as the write mode does; it returns how many it wrote before a failure
// (the rest are NaN, the message left for fresgld_message).
int fresgld_write(void* mp, const double* theta, unsigned long long seed, double* out, int n) {
  auto& model = *static_cast<stan_model*>(mp);
  size_t p = model.num_params_r();
  thread_local std::vector<double> x, vars;
  thread_local std::vector<int> ints;
  x.assign(theta, theta + p);
  vars.clear();
  try {
    ensure_tape();
    boost::ecuyer1988 rng = draw_rng(seed, x);
    model.write_array(rng, x, ints, vars, true, true, nullptr);
  } catch (const std::exception& e) {
    set_msg(e.what());
  }
  int got = static_cast<int>(vars.size());
  vars.resize(n, std::numeric_limits<double>::quiet_NaN());
  std::copy(vars.begin(), vars.begin() + n, out);
  return got;
}

// fresgld_message copies the latest message into buf.
void fresgld_message(char* buf, int n) {
  std::lock_guard<std::mutex> lock(msg_mu);
  std::snprintf(buf, n, "%s", last_msg.c_str());
}

}  // extern "C"
