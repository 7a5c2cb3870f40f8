#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* libmicrohttpd's entry points with variable arguments, which Swift does not import, as
   fixed-argument functions; and the option items whose value is a function pointer, which
   MHD_OPTION_ARRAY wants cast to intptr_t. */

/** MHD_start_daemon with its options as an array ending in MHD_OPTION_END. */
static inline struct MHD_Daemon *iapscreen_mhd_start(unsigned int flags, MHD_AccessHandlerCallback handler,
                                                     void *context, const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/** The port the daemon listens on (the one the kernel chose for port 0); 0 when unknown. */
static inline uint16_t iapscreen_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/** The client's address, or NULL. */
static inline const struct sockaddr *iapscreen_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

typedef void *(*iapscreen_mhd_uri_log)(void *context, const char *uri, struct MHD_Connection *connection);

/** An option item naming a callback and the context it is called with. */
static inline struct MHD_OptionItem iapscreen_mhd_completed_option(MHD_RequestCompletedCallback callback,
                                                                   void *context) {
    struct MHD_OptionItem item = {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)callback, context};
    return item;
}

static inline struct MHD_OptionItem iapscreen_mhd_uri_log_option(iapscreen_mhd_uri_log callback, void *context) {
    struct MHD_OptionItem item = {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)callback, context};
    return item;
}

static inline struct MHD_OptionItem iapscreen_mhd_logger_option(MHD_LogCallback callback, void *context) {
    struct MHD_OptionItem item = {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)callback, context};
    return item;
}
